//! The fixtures the Python references write (`tests/reference/*.py`, format described in
//! `tests/reference/fixture.py`): text files of cases, each a list of `key = value` fields
//! with the data rows below each, and little-endian f32 files the fields name.

use std::path::PathBuf;

/// One `key = value` field and the data rows below it.
#[derive(Clone, Debug)]
pub struct Field {
    /// The key.
    pub key: String,
    /// The text after `=`, trimmed.
    pub value: String,
    /// The data rows that follow the field.
    pub rows: Vec<String>,
}

/// One case of a fixture: its fields in order.
#[derive(Clone, Debug)]
pub struct Case {
    /// The file it came from.
    pub file: String,
    /// The fields, the first being `case = NAME`.
    pub fields: Vec<Field>,
}

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// The cases of the text fixture `name`.
pub fn cases(name: &str) -> Vec<Case> {
    let path = dir().join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run tests/reference/*.py)", path.display()));
    let mut cases: Vec<Case> = vec![];
    for line in text.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        if let Some((k, v)) = line.split_once('=') {
            let field = Field {
                key: k.trim().to_string(),
                value: v.trim().to_string(),
                rows: vec![],
            };
            if field.key == "case" {
                cases.push(Case {
                    file: name.to_string(),
                    fields: vec![],
                });
            }
            let case = cases
                .last_mut()
                .unwrap_or_else(|| panic!("{name}: a field before the first case"));
            case.fields.push(field);
        } else {
            let field = cases
                .last_mut()
                .and_then(|c| c.fields.last_mut())
                .unwrap_or_else(|| panic!("{name}: a data row before any field"));
            field.rows.push(line.to_string());
        }
    }
    cases
}

/// The case `case` of the text fixture `name`.
pub fn case(name: &str, case: &str) -> Case {
    cases(name)
        .into_iter()
        .find(|c| c.name() == case)
        .unwrap_or_else(|| panic!("{name} has no case {case}"))
}

/// The floats of the f32 fixture `name`.
pub fn f32s(name: &str) -> Vec<f32> {
    let path = dir().join(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(bytes.len() % 4, 0, "{name} is not whole f32s");
    bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

impl Case {
    /// The case's name.
    pub fn name(&self) -> &str {
        self.fields.first().map_or("", |f| &f.value)
    }
    /// The first field `key`.
    pub fn field(&self, key: &str) -> &Field {
        self.fields
            .iter()
            .find(|f| f.key == key)
            .unwrap_or_else(|| panic!("{} case {}: no field {key}", self.file, self.name()))
    }
    /// Every field `key`, in order.
    pub fn all<'a>(&'a self, key: &'a str) -> impl Iterator<Item = &'a Field> + 'a {
        self.fields.iter().filter(move |f| f.key == key)
    }
    /// The value of field `key`.
    pub fn get(&self, key: &str) -> &str {
        &self.field(key).value
    }
    /// Field `key` as an integer.
    pub fn int(&self, key: &str) -> i64 {
        self.get(key)
            .parse()
            .unwrap_or_else(|e| panic!("{} {}: {key}: {e}", self.file, self.name()))
    }
    /// Field `key` as a float.
    pub fn float(&self, key: &str) -> f64 {
        parse_float(self.get(key))
    }
    /// Field `key` as space-separated floats.
    pub fn floats(&self, key: &str) -> Vec<f64> {
        self.get(key).split_whitespace().map(parse_float).collect()
    }
    /// Field `key` as `true` or `false`.
    pub fn bool(&self, key: &str) -> bool {
        match self.get(key) {
            "true" => true,
            "false" => false,
            v => panic!("{} {}: {key} = {v} is not a bool", self.file, self.name()),
        }
    }
    /// The `(number, rest)` pairs of the fields `key` (such as `after = 3 file.bin`).
    pub fn numbered(&self, key: &str) -> Vec<(u64, String)> {
        self.all(key)
            .map(|f| {
                let (n, rest) = f.value.split_once(' ').unwrap_or((&f.value, ""));
                (n.parse().expect("a number first"), rest.trim().to_string())
            })
            .collect()
    }
    /// The `sensitivity = NAME FIGURE` fields: how far a wrong model lands from the reference.
    pub fn sensitivities(&self) -> Vec<(String, f64)> {
        self.all("sensitivity")
            .map(|f| {
                let (name, v) = f.value.rsplit_once(' ').expect("NAME FIGURE");
                (name.to_string(), parse_float(v))
            })
            .collect()
    }
}

fn parse_float(s: &str) -> f64 {
    s.parse()
        .unwrap_or_else(|e| panic!("`{s}` is not a float: {e}"))
}
