//! `Table` → Arrow (spec 00 §2.4: "the Python API returns the same tables as
//! data frames"). The same record batch feeds the Parquet files and the Arrow
//! IPC stream handed to Python, so both carry identical column types.

use std::sync::Arc;

use arrow_array::{
    ArrayRef, Float64Array, Int64Array, RecordBatch, RecordBatchOptions, StringArray, UInt64Array,
};
use arrow_ipc::writer::StreamWriter;
use arrow_schema::{DataType, Field, Schema};

use super::table::{Column, Table};

/// The Arrow type of a column: F64→Float64, U64→UInt64, I64→Int64, Str→Utf8.
pub fn data_type(c: &Column) -> DataType {
    match c {
        Column::F64(_) => DataType::Float64,
        Column::U64(_) => DataType::UInt64,
        Column::I64(_) => DataType::Int64,
        Column::Str(_) => DataType::Utf8,
    }
}

/// The Arrow schema of a table: its columns in order, none nullable.
pub fn schema(t: &Table) -> Schema {
    Schema::new(
        t.columns
            .iter()
            .map(|(name, c)| Field::new(name.as_str(), data_type(c), false))
            .collect::<Vec<_>>(),
    )
}

fn to_array(c: &Column) -> ArrayRef {
    match c {
        Column::F64(v) => Arc::new(Float64Array::from(v.clone())),
        Column::U64(v) => Arc::new(UInt64Array::from(v.clone())),
        Column::I64(v) => Arc::new(Int64Array::from(v.clone())),
        Column::Str(v) => Arc::new(StringArray::from_iter_values(v.iter())),
    }
}

/// One record batch holding the whole table. The row count is explicit so that a
/// table without columns still converts.
pub fn to_record_batch(t: &Table) -> RecordBatch {
    t.check();
    let arrays: Vec<ArrayRef> = t.columns.iter().map(|(_, c)| to_array(c)).collect();
    let options = RecordBatchOptions::new().with_row_count(Some(t.num_rows()));
    // Cannot fail: every array is built from its column with the field's type, non-null,
    // and `check` has asserted equal lengths.
    RecordBatch::try_new_with_options(Arc::new(schema(t)), arrays, &options)
        .unwrap_or_else(|e| panic!("table {}: arrow conversion: {e}", t.name))
}

/// The table in the Arrow IPC *stream* format (schema message, one batch, end marker),
/// as read by `pyarrow.ipc.open_stream`.
pub fn to_ipc_stream(t: &Table) -> Vec<u8> {
    let batch = to_record_batch(t);
    // Writing into a Vec<u8> cannot fail on I/O; an error here would be a bug in the batch.
    let mut w = StreamWriter::try_new(Vec::new(), batch.schema_ref())
        .unwrap_or_else(|e| panic!("table {}: ipc schema: {e}", t.name));
    w.write(&batch)
        .unwrap_or_else(|e| panic!("table {}: ipc batch: {e}", t.name));
    w.into_inner()
        .unwrap_or_else(|e| panic!("table {}: ipc finish: {e}", t.name))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use arrow_array::Array;
    use arrow_ipc::reader::StreamReader;

    /// A small table with one column of every kind.
    pub(crate) fn sample() -> Table {
        Table::new(
            "tcp",
            vec![
                ("t", Column::F64(vec![0.0, 0.01, 0.02])),
                (
                    "flow",
                    Column::Str(vec!["bulk".into(), "bulk".into(), "other".into()]),
                ),
                ("cwnd", Column::U64(vec![10, 20, u64::MAX])),
                ("delta", Column::I64(vec![-1, 0, i64::MIN])),
            ],
        )
    }

    /// Rebuilds a `Table` from a batch of the four supported types (test helper).
    pub(crate) fn from_batch(name: &str, b: &RecordBatch) -> Table {
        let columns = b
            .schema()
            .fields()
            .iter()
            .zip(b.columns())
            .map(|(f, a)| {
                assert_eq!(a.null_count(), 0);
                let c = match f.data_type() {
                    DataType::Float64 => Column::F64(
                        a.as_any()
                            .downcast_ref::<Float64Array>()
                            .unwrap()
                            .values()
                            .to_vec(),
                    ),
                    DataType::UInt64 => Column::U64(
                        a.as_any()
                            .downcast_ref::<UInt64Array>()
                            .unwrap()
                            .values()
                            .to_vec(),
                    ),
                    DataType::Int64 => Column::I64(
                        a.as_any()
                            .downcast_ref::<Int64Array>()
                            .unwrap()
                            .values()
                            .to_vec(),
                    ),
                    DataType::Utf8 => Column::Str(
                        a.as_any()
                            .downcast_ref::<StringArray>()
                            .unwrap()
                            .iter()
                            .map(|s| s.unwrap().to_string())
                            .collect(),
                    ),
                    other => panic!("unexpected type {other}"),
                };
                (f.name().clone(), c)
            })
            .collect();
        Table {
            name: name.to_string(),
            columns,
        }
    }

    #[test]
    fn record_batch_has_the_declared_types() {
        let b = to_record_batch(&sample());
        let types: Vec<_> = b
            .schema()
            .fields()
            .iter()
            .map(|f| (f.name().clone(), f.data_type().clone(), f.is_nullable()))
            .collect();
        assert_eq!(
            types,
            vec![
                ("t".to_string(), DataType::Float64, false),
                ("flow".to_string(), DataType::Utf8, false),
                ("cwnd".to_string(), DataType::UInt64, false),
                ("delta".to_string(), DataType::Int64, false),
            ]
        );
        assert_eq!(b.num_rows(), 3);
    }

    #[test]
    fn ipc_stream_round_trips() {
        let t = sample();
        let bytes = to_ipc_stream(&t);
        let reader = StreamReader::try_new(std::io::Cursor::new(bytes), None).unwrap();
        let batches: Vec<RecordBatch> = reader.map(|b| b.unwrap()).collect();
        assert_eq!(batches.len(), 1);
        assert_eq!(from_batch("tcp", &batches[0]), t);
    }

    #[test]
    fn empty_tables_convert() {
        let no_rows = Table::new(
            "q",
            vec![("t", Column::F64(vec![])), ("queue", Column::Str(vec![]))],
        );
        assert_eq!(to_record_batch(&no_rows).num_rows(), 0);
        let reader =
            StreamReader::try_new(std::io::Cursor::new(to_ipc_stream(&no_rows)), None).unwrap();
        assert_eq!(reader.schema().fields().len(), 2);

        let no_columns = Table::new("none", vec![]);
        assert_eq!(to_record_batch(&no_columns).num_columns(), 0);
        assert!(!to_ipc_stream(&no_columns).is_empty());
    }

    #[test]
    fn ipc_is_deterministic() {
        assert_eq!(to_ipc_stream(&sample()), to_ipc_stream(&sample()));
    }
}
