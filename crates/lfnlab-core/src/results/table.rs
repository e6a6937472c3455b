//! Column-oriented result tables (spec 00 §2.4). Monitors append rows; the
//! writer turns a `Table` into Arrow/Parquet without knowing what it holds.

/// One column of values.
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    F64(Vec<f64>),
    U64(Vec<u64>),
    I64(Vec<i64>),
    Str(Vec<String>),
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Column::F64(v) => v.len(),
            Column::U64(v) => v.len(),
            Column::I64(v) => v.len(),
            Column::Str(v) => v.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A named table with equal-length columns, in a fixed column order.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    pub name: String,
    pub columns: Vec<(String, Column)>,
}

impl Table {
    pub fn new(name: &str, columns: Vec<(&str, Column)>) -> Table {
        let t = Table {
            name: name.to_string(),
            columns: columns.into_iter().map(|(n, c)| (n.to_string(), c)).collect(),
        };
        t.check();
        t
    }

    pub fn num_rows(&self) -> usize {
        self.columns.first().map_or(0, |(_, c)| c.len())
    }

    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c)
    }

    /// Invariant: all columns have the same length.
    pub fn check(&self) {
        let n = self.num_rows();
        for (name, c) in &self.columns {
            assert_eq!(c.len(), n, "table {}: column {} has {} rows, expected {}", self.name, name, c.len(), n);
        }
    }
}
