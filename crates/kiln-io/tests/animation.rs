//! Animations decode to the frames, delays and sizes they were made with.

use kiln_image::image::Image;
use kiln_io::animation::{Animation, AnimationError, AnimationFormat};

fn frames() -> Vec<Image> {
    [
        [1.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0, 1.0],
        [0.0, 0.0, 1.0, 1.0],
    ]
    .iter()
    .map(|&c| Image::filled(6, 4, c))
    .collect()
}

#[test]
fn a_gif_has_every_frame_at_the_delay_of_its_rate() {
    let mut a = Animation::new(AnimationFormat::Gif, 25.0).unwrap();
    for f in frames() {
        a.push(&f).unwrap();
    }
    let bytes = a.finish().unwrap().unwrap();
    let mut opts = gif::DecodeOptions::new();
    opts.set_color_output(gif::ColorOutput::RGBA);
    let mut d = opts.read_info(&bytes[..]).unwrap();
    assert_eq!((d.width(), d.height()), (6, 4));
    let mut seen = vec![];
    while let Some(f) = d.read_next_frame().unwrap() {
        // 25 frames a second: 4 hundredths of a second each.
        assert_eq!(f.delay, 4);
        seen.push([f.buffer[0], f.buffer[1], f.buffer[2]]);
    }
    assert_eq!(seen.len(), 3);
    // Solid colours survive the palette exactly.
    assert_eq!(seen, [[255, 0, 0], [0, 255, 0], [0, 0, 255]]);
    // The same frames give the same bytes.
    let mut b = Animation::new(AnimationFormat::Gif, 25.0).unwrap();
    for f in frames() {
        b.push(&f).unwrap();
    }
    assert_eq!(b.finish().unwrap().unwrap(), bytes);
}

#[test]
fn an_apng_declares_its_frames_and_delay() {
    let mut a = Animation::new(AnimationFormat::Apng, 30.0).unwrap();
    for f in frames() {
        a.push(&f).unwrap();
    }
    let bytes = a.finish().unwrap().unwrap();
    let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
        .read_info()
        .unwrap();
    let info = reader.info();
    assert_eq!((info.width, info.height), (6, 4));
    assert_eq!(info.animation_control().unwrap().num_frames, 3);
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let mut n = 0;
    while reader.next_frame(&mut buf).is_ok() {
        let fc = reader.info().frame_control().unwrap();
        assert_eq!((fc.delay_num, fc.delay_den), (33, 1000));
        n += 1;
    }
    assert_eq!(n, 3);
}

#[test]
fn a_frame_of_another_size_and_a_bad_rate_are_refused() {
    let mut a = Animation::new(AnimationFormat::Gif, 10.0).unwrap();
    a.push(&Image::filled(4, 4, [0.0; 4])).unwrap();
    let e = a.push(&Image::filled(5, 4, [0.0; 4])).unwrap_err();
    assert!(
        matches!(e, AnimationError::SizeChanged { frame: 1, .. }),
        "{e}"
    );
    assert!(e.to_string().contains("5 x 4"));
    assert!(Animation::new(AnimationFormat::Apng, 0.0).is_err());
    assert!(Animation::new(AnimationFormat::Gif, f64::NAN).is_err());
    assert_eq!(
        Animation::new(AnimationFormat::Gif, 10.0)
            .unwrap()
            .finish()
            .unwrap(),
        None
    );
}

/// Issue 37, item 10: an animation written to a file streams each frame out as it comes and
/// holds none, and its file is the same bytes as the one made in memory.
#[test]
fn a_file_animation_streams_its_frames_and_matches_the_one_made_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    for format in [AnimationFormat::Gif, AnimationFormat::Apng] {
        let mut memory = Animation::new(format, 12.0).unwrap();
        let path = dir.path().join(format!("walk.{}", format.extension()));
        let mut file = Animation::to_file(&path, format, 12.0, 3).unwrap();
        for f in frames() {
            memory.push(&f).unwrap();
            file.push(&f).unwrap();
            assert_eq!(file.bytes_held(), 0, "{format}: no frame held");
            assert!(
                !path.exists(),
                "{format}: nothing in place before the commit"
            );
        }
        if format == AnimationFormat::Apng {
            // In memory, an APNG holds its frames (6 x 4 RGBA each) until their count is known.
            assert_eq!(memory.bytes_held(), 3 * 6 * 4 * 4);
        }
        let bytes = memory.finish().unwrap().unwrap();
        assert_eq!(file.commit().unwrap().as_deref(), Some(path.as_path()));
        assert_eq!(std::fs::read(&path).unwrap(), bytes, "{format}");
    }
    // Only the two files: no temporary one is left.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
}

#[test]
fn a_file_apng_given_fewer_or_more_frames_than_it_stated_is_refused_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("short.apng");
    let mut a = Animation::to_file(&path, AnimationFormat::Apng, 10.0, 5).unwrap();
    for f in frames() {
        a.push(&f).unwrap();
    }
    let e = a.commit().unwrap_err();
    assert!(
        matches!(
            e,
            AnimationError::FrameCount {
                stated: 5,
                given: 3,
                ..
            }
        ),
        "{e:?}"
    );
    let mut a = Animation::to_file(&path, AnimationFormat::Apng, 10.0, 2).unwrap();
    let all = frames();
    a.push(&all[0]).unwrap();
    a.push(&all[1]).unwrap();
    assert!(matches!(
        a.push(&all[2]).unwrap_err(),
        AnimationError::FrameCount { stated: 2, .. }
    ));
    drop(a);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}
