//! A sweep's summary file: a header, then one CSV line per finished case,
//! its id first and its wall time last. Lines are appended whole and
//! flushed as each case ends, so an interrupted sweep leaves complete lines
//! and at most one partial last line, which reading drops; `merge` joins
//! the files of shards into one, ordered by case id.

use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The first column: the case's index in the expanded case list.
pub const CASE: &str = "case";
/// The last column, the only one that differs between two runs of a case.
pub const WALL_TIME: &str = "wall_time";

/// The complete lines of a summary file.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// The column names.
    pub header: Vec<String>,
    /// The finished cases in file order, each with its id.
    pub rows: Vec<(usize, Vec<String>)>,
    /// Whether the file ends in something that is no complete line (an
    /// interrupted write), which the next append replaces.
    pub partial: bool,
}

/// One CSV line (quoted where needed, no line break inside, `\n` at the
/// end).
pub fn line(fields: &[String]) -> Result<Vec<u8>, String> {
    let mut writer = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    let flat = fields.iter().map(|f| f.replace(['\n', '\r'], "; "));
    writer
        .write_record(flat)
        .map_err(|e| format!("cannot format a summary line: {e}"))?;
    writer
        .into_inner()
        .map_err(|e| format!("cannot format a summary line: {e}"))
}

/// The fields of one line, or `None` when it is no CSV record.
fn fields(text: &str) -> Option<Vec<String>> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(text.as_bytes());
    let mut record = csv::StringRecord::new();
    match reader.read_record(&mut record) {
        Ok(true) => Some(record.iter().map(str::to_owned).collect()),
        _ => None,
    }
}

/// Reads the summary at `path`: `None` when there is no file (or only a
/// partial header), otherwise its complete lines. A line counts when it
/// ends in a line break, parses, has the header's width and starts with a
/// case id; reading stops at the first that does not.
pub fn read(path: &Path) -> Result<Option<Table>, String> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let text = String::from_utf8_lossy(&bytes);
    let mut lines = text.split_inclusive('\n');
    let Some(header) = lines.next().filter(|l| l.ends_with('\n')).and_then(fields) else {
        return Ok(None);
    };
    if header.first().map(String::as_str) != Some(CASE)
        || header.last().map(String::as_str) != Some(WALL_TIME)
    {
        return Err(format!(
            "{} is no sweep summary (its first line is not `{CASE},…,{WALL_TIME}`); \
             choose another --out",
            path.display()
        ));
    }
    let mut rows = Vec::new();
    let mut partial = false;
    for line in lines {
        let row = line
            .strip_suffix('\n')
            .and_then(fields)
            .filter(|row| row.len() == header.len())
            .and_then(|row| Some((row.first()?.parse::<usize>().ok()?, row)));
        match row {
            Some(row) => rows.push(row),
            None => {
                partial = true;
                break;
            }
        }
    }
    Ok(Some(Table {
        header,
        rows,
        partial,
    }))
}

/// The summary file a sweep appends to, one whole line per case.
pub struct Appender {
    file: File,
    path: PathBuf,
}

impl Appender {
    /// Opens `path` for appending after the complete lines of `existing`
    /// (what [`read`] found there; a partial last line is dropped first),
    /// or creates it with `header`.
    pub fn open(path: &Path, header: &[String], existing: Option<&Table>) -> Result<Self, String> {
        match existing {
            Some(table) if !table.partial => {}
            Some(table) => write_table(path, table)?,
            None => write_table(
                path,
                &Table {
                    header: header.to_vec(),
                    rows: Vec::new(),
                    partial: false,
                },
            )?,
        }
        let file = OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        Ok(Appender {
            file,
            path: path.to_owned(),
        })
    }

    /// Appends one case's line in a single write, then flushes it.
    pub fn append(&mut self, fields: &[String]) -> Result<(), String> {
        let line = line(fields)?;
        self.file
            .write_all(&line)
            .and_then(|()| self.file.flush())
            .map_err(|e| format!("cannot write {}: {e}", self.path.display()))
    }
}

/// Writes `table` (its rows ordered by case id) to `path` through a
/// temporary file renamed over it, so that a reader sees the old file or
/// the new one.
pub fn write_table(path: &Path, table: &Table) -> Result<(), String> {
    let mut rows: Vec<&(usize, Vec<String>)> = table.rows.iter().collect();
    rows.sort_by_key(|(id, _)| *id);
    let mut text = line(&table.header)?;
    for (_, row) in rows {
        text.extend(line(row)?);
    }
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".partial");
    let temporary = PathBuf::from(temporary);
    std::fs::write(&temporary, &text)
        .and_then(|()| std::fs::rename(&temporary, path))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The summary files of a directory: `summary.csv` and every shard's
/// `summary-<i>-of-<n>.csv`, in name order.
pub fn summary_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("summary") && n.ends_with(".csv"))
        })
        .collect();
    files.sort();
    Ok(files)
}

/// What a merge found: the cases joined and the ids missing below the
/// largest.
#[derive(Clone, Debug, PartialEq)]
pub struct Merged {
    /// Cases in the merged summary.
    pub cases: usize,
    /// Files read.
    pub files: usize,
    /// Case ids below the largest that no file holds.
    pub missing: Vec<usize>,
}

/// Joins the summary files of `dirs` into `out` (`summary.csv`), ordered by
/// case id. The files must have one header; a case in two files is kept
/// once (they agree but for the wall time, or the merge is refused).
pub fn merge(dirs: &[PathBuf], out: &Path) -> Result<Merged, String> {
    let mut header: Option<(PathBuf, Vec<String>)> = None;
    let mut rows: std::collections::BTreeMap<usize, (PathBuf, Vec<String>)> = Default::default();
    let mut files = 0;
    for dir in dirs {
        for path in summary_files(dir)? {
            let Some(table) = read(&path)? else {
                continue;
            };
            files += 1;
            match &header {
                None => header = Some((path.clone(), table.header.clone())),
                Some((first, h)) if *h != table.header => {
                    return Err(format!(
                        "{} and {} are summaries of different sweeps (their columns differ)",
                        first.display(),
                        path.display()
                    ))
                }
                Some(_) => {}
            }
            for (id, row) in table.rows {
                if let Some((other, kept)) = rows.get(&id) {
                    let without_time = |r: &[String]| r[..r.len().saturating_sub(1)].to_vec();
                    if without_time(kept) != without_time(&row) {
                        return Err(format!(
                            "case {id} differs between {} and {}: are they the same sweep?",
                            other.display(),
                            path.display()
                        ));
                    }
                    continue;
                }
                rows.insert(id, (path.clone(), row));
            }
        }
    }
    let Some((_, header)) = header else {
        let shown: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
        return Err(format!(
            "no summary file (summary*.csv) in {}",
            shown.join(", ")
        ));
    };
    let largest = rows.keys().next_back().copied().unwrap_or(0);
    let missing = (0..largest).filter(|id| !rows.contains_key(id)).collect();
    let table = Table {
        header,
        rows: rows.into_iter().map(|(id, (_, row))| (id, row)).collect(),
        partial: false,
    };
    write_table(out, &table)?;
    Ok(Merged {
        cases: table.rows.len(),
        files,
        missing,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(fields: &[&str]) -> Vec<String> {
        fields.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn a_partial_last_line_is_dropped_and_replaced() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("summary.csv");
        let header = strings(&["case", "p.l", "error", "wall_time"]);
        let mut appender = Appender::open(&path, &header, None).expect("created");
        appender
            .append(&strings(&["1", "0.5", "a, \"quoted\"\nerror", "0.1"]))
            .expect("appended");
        let mut text = std::fs::read_to_string(&path).expect("read");
        text.push_str("0,0.2");
        std::fs::write(&path, text).expect("written");
        let table = read(&path).expect("readable").expect("a summary");
        assert!(table.partial);
        assert_eq!(table.rows.len(), 1);
        assert_eq!(table.rows[0].1[2], "a, \"quoted\"; error");
        let mut appender = Appender::open(&path, &header, Some(&table)).expect("reopened");
        appender
            .append(&strings(&["0", "0.2", "", "0.3"]))
            .expect("appended");
        let table = read(&path).expect("readable").expect("a summary");
        assert!(!table.partial);
        assert_eq!(
            table.rows.iter().map(|(id, _)| *id).collect::<Vec<_>>(),
            [1, 0]
        );
        let out = dir.path().join("merged.csv");
        let merged = merge(&[dir.path().to_owned()], &out).expect("merged");
        assert_eq!(merged.cases, 2);
        let text = std::fs::read_to_string(&out).expect("read");
        assert!(text.lines().nth(1).is_some_and(|l| l.starts_with("0,")));
    }
}
