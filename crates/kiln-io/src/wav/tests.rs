//! Tests of WAV writing, streaming and reading.

use super::samples::{check_length, pcm};
use super::*;
use crate::values::WriteError;
use std::path::Path;

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Values that an f32 holds exactly, including extremes beyond [-1, 1].
fn f32_values() -> Vec<f64> {
    let mut v: Vec<f64> = (0..1000)
        .map(|i| f64::from((i as f32 * 0.0137).sin() * 0.9))
        .collect();
    v.extend([
        0.0,
        -0.0,
        1.0,
        -1.0,
        1.5,
        -3.25,
        f64::from(f32::MIN_POSITIVE),
        f64::from(f32::MAX),
        f64::from(f32::MIN),
        1e-45, // rounds to the smallest subnormal below
    ]);
    v.iter().map(|&x| f64::from(x as f32)).collect()
}

#[test]
fn float32_round_trips_f32_values_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.wav");
    let samples = f32_values();
    write_wav_mono(&path, &samples, 44_100, WavFormat::Float32).unwrap();
    let back = read_wav(&path).unwrap();
    assert_eq!(back.sample_rate, 44_100);
    assert_eq!(back.format, WavFormat::Float32);
    assert_eq!(back.channels.len(), 1);
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&back.channels[0]), bits(&samples));
}

#[test]
fn pcm16_is_within_one_step_and_clamps() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.wav");
    let samples: Vec<f64> = (0..4001).map(|i| -1.0 + i as f64 * 0.0005).collect();
    write_wav_mono(&path, &samples, 48_000, WavFormat::Pcm16).unwrap();
    let back = read_wav(&path).unwrap();
    assert_eq!(back.format, WavFormat::Pcm16);
    assert_eq!(back.channels[0].len(), samples.len());
    for (a, b) in back.channels[0].iter().zip(&samples) {
        assert!((a - b).abs() <= 1.0 / 32768.0, "{a} vs {b}");
    }
    // Out of range: clamped to the extremes; exact extremes and zero survive.
    write_wav_mono(&path, &[2.0, -7.0, 1.0, -1.0, 0.0], 8_000, WavFormat::Pcm16).unwrap();
    assert_eq!(
        read_wav(&path).unwrap().channels[0],
        [1.0, -1.0, 1.0, -1.0, 0.0]
    );
    // The file is the 44-byte header and 2 bytes a sample.
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 44 + 5 * 2);
}

#[test]
fn pcm_rounds_to_the_nearest_step() {
    assert_eq!(pcm(0.5 / 32_767.0, 32_767.0), 1);
    assert_eq!(pcm(0.49 / 32_767.0, 32_767.0), 0);
    assert_eq!(pcm(-0.51 / 32_767.0, 32_767.0), -1);
    assert_eq!(pcm(1.0, 8_388_607.0), 8_388_607);
    assert_eq!(pcm(-1.5, 8_388_607.0), -8_388_607);
}

#[test]
fn pcm24_is_within_one_step() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.wav");
    let samples: Vec<f64> = (0..997).map(|i| (i as f64 * 0.31).sin()).collect();
    write_wav_mono(&path, &samples, 96_000, WavFormat::Pcm24).unwrap();
    let back = read_wav(&path).unwrap();
    assert_eq!((back.sample_rate, back.format), (96_000, WavFormat::Pcm24));
    for (a, b) in back.channels[0].iter().zip(&samples) {
        assert!((a - b).abs() <= 1.0 / 8_388_608.0, "{a} vs {b}");
    }
    // 24-bit files have the 68-byte `WAVE_FORMAT_EXTENSIBLE` header.
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 68 + 997 * 3);
}

#[test]
fn channels_are_interleaved_and_read_back_apart() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("st.wav");
    let left = [0.25, 0.5, 0.75];
    let right = [-0.25, -0.5, -0.75];
    write_wav(&path, &[&left, &right], 22_050, WavFormat::Float32).unwrap();
    let back = read_wav(&path).unwrap();
    assert_eq!(back.channels, vec![left.to_vec(), right.to_vec()]);
    let err = write_wav(&path, &[&left, &right[..2]], 22_050, WavFormat::Float32);
    assert!(matches!(
        err,
        Err(WavError::UnequalChannels {
            channel: 1,
            len: 2,
            expected: 3
        })
    ));
    assert!(matches!(
        write_wav(&path, &[], 22_050, WavFormat::Float32),
        Err(WavError::NoChannels)
    ));
    assert!(matches!(
        write_wav_mono(&path, &left, 0, WavFormat::Float32),
        Err(WavError::BadRate)
    ));
}

#[test]
fn a_non_finite_sample_writes_nothing_and_names_its_index() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.wav");
    let mut samples = vec![0.1; 100];
    samples[57] = f64::NAN;
    for format in [WavFormat::Float32, WavFormat::Pcm16, WavFormat::Pcm24] {
        let e = write_wav_mono(&path, &samples, 48_000, format).unwrap_err();
        assert!(
            matches!(
                e,
                WavError::NonFinite {
                    channel: 0,
                    index: 57,
                    ..
                }
            ),
            "{e:?}"
        );
        assert!(e.to_string().contains("sample 57"), "{e}");
    }
    samples[57] = 1e300;
    let e = write_wav_mono(&path, &samples, 48_000, WavFormat::Float32).unwrap_err();
    assert!(matches!(e, WavError::OutOfRange { index: 57, .. }), "{e:?}");
    // No file, no temporary file.
    assert!(names(dir.path()).is_empty(), "{:?}", names(dir.path()));
    // An existing file is left as it was.
    write_wav_mono(&path, &[0.5], 48_000, WavFormat::Float32).unwrap();
    let before = std::fs::read(&path).unwrap();
    samples[3] = f64::NEG_INFINITY;
    assert!(write_wav_mono(&path, &samples, 48_000, WavFormat::Pcm16).is_err());
    assert_eq!(std::fs::read(&path).unwrap(), before);
    assert_eq!(names(dir.path()), ["bad.wav"]);
}

#[test]
fn a_write_into_a_missing_folder_fails_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("missing").join("x.wav");
    let e = write_wav_mono(&path, &[0.0], 48_000, WavFormat::Float32).unwrap_err();
    assert!(matches!(e, WavError::Write(WriteError::Io { .. })), "{e:?}");
    assert!(e.to_string().contains("x.wav"), "{e}");
    assert!(names(dir.path()).is_empty());
    assert!(WavStream::create(&path, 1, 48_000, WavFormat::Float32).is_err());
    assert!(names(dir.path()).is_empty());
}

#[test]
fn a_stream_equals_one_write_and_lands_only_on_commit() {
    let dir = tempfile::tempdir().unwrap();
    let samples: Vec<f64> = (0..1000).map(|i| (i as f64 * 0.01).cos() * 0.7).collect();
    for format in [WavFormat::Float32, WavFormat::Pcm16, WavFormat::Pcm24] {
        let whole = dir.path().join(format!("whole-{format}.wav"));
        write_wav_mono(&whole, &samples, 48_000, format).unwrap();
        let path = dir.path().join(format!("stream-{format}.wav"));
        let mut s = WavStream::create(&path, 1, 48_000, format).unwrap();
        for block in samples.chunks(37) {
            s.write_mono(block).unwrap();
        }
        assert_eq!(s.frames(), 1000);
        let staged = s.finish().unwrap();
        assert!(!path.exists(), "not in place before commit");
        assert_eq!(staged.path(), path);
        assert_eq!(staged.commit().unwrap(), path);
        assert_eq!(
            std::fs::read(&path).unwrap(),
            std::fs::read(&whole).unwrap()
        );
    }
    let mut expected: Vec<String> = ["f32", "pcm16", "pcm24"]
        .iter()
        .flat_map(|f| [format!("stream-{f}.wav"), format!("whole-{f}.wav")])
        .collect();
    expected.sort();
    assert_eq!(names(dir.path()), expected, "no temporary file left");
}

#[test]
fn a_failed_or_dropped_stream_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.wav");
    let mut s = WavStream::create(&path, 1, 48_000, WavFormat::Pcm16).unwrap();
    s.write_mono(&[0.0; 64]).unwrap();
    let mut block = [0.0; 64];
    block[10] = f64::INFINITY;
    let e = s.write_mono(&block).unwrap_err();
    // The index counts from the start of the file.
    assert!(matches!(e, WavError::NonFinite { index: 74, .. }), "{e:?}");
    assert_eq!(
        names(dir.path()).len(),
        1,
        "the temporary file, until dropped"
    );
    drop(s);
    assert!(names(dir.path()).is_empty());
    // Finished but not committed: nothing either.
    let mut s = WavStream::create(&path, 1, 48_000, WavFormat::Pcm16).unwrap();
    s.write_mono(&[0.5; 10]).unwrap();
    drop(s.finish().unwrap());
    assert!(names(dir.path()).is_empty());
}

#[test]
fn overlong_files_are_refused_before_writing() {
    let e = check_length(0, u64::from(u32::MAX) / 4, 1, WavFormat::Float32).unwrap_err();
    assert!(matches!(e, WavError::TooLong { .. }), "{e:?}");
    assert!(check_length(0, 1 << 20, 2, WavFormat::Pcm24).is_ok());
    assert!(check_length(u64::MAX, 1, 1, WavFormat::Pcm16).is_err());
}

#[test]
fn reading_a_missing_or_foreign_file_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let e = read_wav(&dir.path().join("none.wav")).unwrap_err();
    assert!(matches!(e, WavError::Read { .. }), "{e:?}");
    let path = dir.path().join("eight.wav");
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate: 8000,
        bits_per_sample: 8,
        sample_format: hound::SampleFormat::Int,
    };
    let mut w = hound::WavWriter::create(&path, spec).unwrap();
    w.write_sample(3i8).unwrap();
    w.finalize().unwrap();
    let e = read_wav(&path).unwrap_err();
    assert!(matches!(e, WavError::Unsupported { bits: 8, .. }), "{e:?}");
}

#[test]
fn a_fifo_or_a_folder_is_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.wav");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    // Opening a FIFO for reading blocks until a writer comes: the refusal comes first.
    let e = read_wav(&fifo).unwrap_err();
    assert!(
        matches!(e, WavError::NotAFile { kind: "a FIFO", .. }),
        "{e:?}"
    );
    let e = read_wav(dir.path()).unwrap_err();
    assert!(matches!(e, WavError::NotAFile { .. }), "{e:?}");
}

#[test]
fn bytes_decode_as_the_file_reads() {
    let left = [0.0, 0.5, -0.25, 1.0];
    let right = [0.125, -1.0, 0.75, 0.0];
    for format in [WavFormat::Float32, WavFormat::Pcm16, WavFormat::Pcm24] {
        let bytes = encode_wav(&[&left, &right], 44_100, format).unwrap();
        let data = decode_wav(&bytes).unwrap();
        assert_eq!((data.sample_rate, data.format), (44_100, format));
        // Every value above is a multiple of 2^-3, exact in each format's steps once
        // scaled back: |x - back| is at most half a PCM step.
        let step = format.pcm_scale().map_or(0.0, |s| 0.5 / s);
        for (channel, want) in data.channels.iter().zip([&left, &right]) {
            assert_eq!(channel.len(), 4);
            for (got, want) in channel.iter().zip(want.iter()) {
                assert!((got - want).abs() <= step, "{format}: {got} for {want}");
            }
        }
    }
}

#[test]
fn the_most_negative_pcm_code_reads_as_minus_one() {
    // Found by the `wav` fuzz target: -32768 read as -32768 / 32767, below -1, and wrote
    // back clamped, as another sample.
    let dir = tempfile::tempdir().unwrap();
    for (bits, low) in [(16u16, -32768i32), (24, -8_388_608)] {
        let path = dir.path().join(format!("low{bits}.wav"));
        let spec = hound::WavSpec {
            channels: 1,
            sample_rate: 8000,
            bits_per_sample: bits,
            sample_format: hound::SampleFormat::Int,
        };
        let mut w = hound::WavWriter::create(&path, spec).unwrap();
        w.write_sample(low).unwrap();
        w.write_sample(low + 1).unwrap();
        w.finalize().unwrap();
        let data = read_wav(&path).unwrap();
        assert_eq!(data.channels[0], [-1.0, -1.0], "{bits} bits");
        let again = encode_wav(&[&data.channels[0]], 8000, data.format).unwrap();
        assert_eq!(decode_wav(&again).unwrap().channels, data.channels);
    }
}
