//! `--baseline OLD.csv`: a previous run's bench.csv, read back, and this run's medians over its
//! medians, matched on (mode, agents).

use std::fmt::Write as _;
use std::path::Path;

use super::report::{BenchRow, CSV_HEADER, SIM_CSV_HEADER};

/// Larger than any bench.csv (a few hundred bytes a row): a wrong file is refused unread.
const MAX_BASELINE_BYTES: u64 = 4 << 20;

/// One row of a previous run: the mode (GL) or variant (headless), the size and its median.
#[derive(Debug, Clone, PartialEq)]
pub struct BaselineRow {
    pub mode: String,
    pub agents: u32,
    pub median_ms: f64,
}

/// Which benchmark a CSV came from, by its header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CsvKind {
    Gl,
    Headless,
}

impl CsvKind {
    fn header(self) -> &'static str {
        match self {
            CsvKind::Gl => CSV_HEADER,
            CsvKind::Headless => SIM_CSV_HEADER,
        }
    }

    fn name(self) -> &'static str {
        match self {
            CsvKind::Gl => "GL",
            CsvKind::Headless => "headless (--headless)",
        }
    }

    /// (key column, median column).
    fn columns(self) -> (&'static str, &'static str) {
        match self {
            CsvKind::Gl => ("mode", "frame_ms_median"),
            CsvKind::Headless => ("variant", "step_ms_median"),
        }
    }
}

/// Reads a previous bench.csv of the same kind as this run. Errors name the file and line.
pub fn read_baseline(path: &Path, kind: CsvKind) -> Result<Vec<BaselineRow>, String> {
    let at = |line: usize, what: &str| format!("--baseline {}:{line}: {what}", path.display());
    let bytes = crate::file_read::read_capped(path, MAX_BASELINE_BYTES)
        .map_err(|e| format!("--baseline {}: cannot read the file: {e}", path.display()))?;
    let text =
        String::from_utf8(bytes).map_err(|_| at(1, "not UTF-8 text; expected a bench.csv"))?;
    parse_baseline(&text, kind).map_err(|(line, what)| at(line, &what))
}

/// The rows of a bench.csv; an error is (1-based line, what is wrong).
pub fn parse_baseline(text: &str, kind: CsvKind) -> Result<Vec<BaselineRow>, (usize, String)> {
    let mut lines = text.lines().enumerate();
    let header = lines.next().map_or("", |(_, l)| l.trim_end_matches('\r'));
    // A GL file from before the waits were measured reads the same (columns go by name).
    let kind_of = |header: &str| {
        [CsvKind::Gl, CsvKind::Headless]
            .into_iter()
            .find(|k| k.header() == header)
            .or((header == super::report::CSV_HEADER_BEFORE_WAITS).then_some(CsvKind::Gl))
    };
    let found = kind_of(header);
    if found != Some(kind) {
        let what = match found {
            Some(o) => format!(
                "this is a {} bench.csv and this run is {}; compare runs of one kind",
                o.name(),
                kind.name()
            ),
            None => format!(
                "not a bench.csv: the first line must be `{}`",
                kind.header()
            ),
        };
        return Err((1, what));
    }
    let names: Vec<&str> = header.split(',').collect();
    let (key, median) = kind.columns();
    let column = |name: &str| names.iter().position(|h| *h == name).unwrap_or(0);
    let (key, agents, median) = (column(key), column("agents"), column(median));
    let mut rows = Vec::new();
    for (n, line) in lines {
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() {
            continue;
        }
        let cells: Vec<&str> = line.split(',').collect();
        if cells.len() != names.len() {
            let what = format!("{} cells, the header has {}", cells.len(), names.len());
            return Err((n + 1, what));
        }
        let agents = cells[agents].parse::<u32>().map_err(|_| {
            (
                n + 1,
                format!("agents `{}` is not a whole number", cells[agents]),
            )
        })?;
        let median_ms = cells[median]
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| {
                let what = format!(
                    "{} `{}` is not a number of milliseconds",
                    names[median], cells[median]
                );
                (n + 1, what)
            })?;
        rows.push(BaselineRow {
            mode: cells[key].to_string(),
            agents,
            median_ms,
        });
    }
    if rows.is_empty() {
        return Err((1, "no rows under the header".into()));
    }
    Ok(rows)
}

/// This run's median over the baseline's for one (mode, agents).
#[derive(Debug, Clone, PartialEq)]
pub struct Ratio {
    pub mode: String,
    pub agents: u32,
    pub new_ms: f64,
    pub old_ms: f64,
    pub ratio: f64,
}

/// The rows of this run that the baseline also measured (with a median above 0), in run order.
pub fn ratios(rows: &[BenchRow], baseline: &[BaselineRow]) -> Vec<Ratio> {
    rows.iter()
        .filter_map(|r| {
            let old = baseline
                .iter()
                .find(|b| b.mode == r.mode && b.agents == r.agents && b.median_ms > 0.0)?;
            Some(Ratio {
                mode: r.mode.clone(),
                agents: r.agents,
                new_ms: r.frame_ms_median,
                old_ms: old.median_ms,
                ratio: r.frame_ms_median / old.median_ms,
            })
        })
        .collect()
}

/// The comparison printed after the table: one line per row of this run.
pub fn baseline_table(rows: &[BenchRow], baseline: &[BaselineRow], source: &Path) -> String {
    let matched = ratios(rows, baseline);
    let mut s = format!("against the baseline {}:\n", source.display());
    let _ = writeln!(
        s,
        "{:<10} {:>8} {:>10} {:>10} {:>9}",
        "mode", "agents", "median ms", "base ms", "new/base"
    );
    for r in rows {
        match matched
            .iter()
            .find(|m| m.mode == r.mode && m.agents == r.agents)
        {
            Some(m) => {
                let _ = writeln!(
                    s,
                    "{:<10} {:>8} {:>10.2} {:>10.2} {:>8.2}x",
                    m.mode, m.agents, m.new_ms, m.old_ms, m.ratio
                );
            }
            None => {
                let _ = writeln!(
                    s,
                    "{:<10} {:>8} {:>10.2} {:>10} {:>9}",
                    r.mode, r.agents, r.frame_ms_median, "-", "no match"
                );
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const GL: &str = "mode,agents,frames,frame_ms_median,frame_ms_p95,sim_ms_median,anim_ms_median,cull_lod_pack_ms_median,submit_ms_median,draw_calls,triangles,uniform_bytes,visible\n\
pipeline,100,30,10.0000,12.0000,0.5,,0.2,1.0,5,1000,640,42\n\
naive,100,3,40.0000,,0.5,0.1,0.2,1.0,5,1000,640,42\n";

    #[test]
    fn the_current_header_and_the_one_before_the_waits_both_read() {
        let current = format!(
            "{}\npipeline,100,30,10.0000,12.0000,0.5,,0.2,1.0,5,1000,640,42,6.0,2.0,0.3\n",
            super::super::report::CSV_HEADER
        );
        let rows = parse_baseline(&current, CsvKind::Gl).expect("parses");
        assert_eq!((rows.len(), rows[0].median_ms), (1, 10.0));
        // GL is written with the older header.
        assert!(GL.starts_with(super::super::report::CSV_HEADER_BEFORE_WAITS));
        assert_eq!(parse_baseline(GL, CsvKind::Gl).map(|r| r.len()), Ok(2));
    }

    #[test]
    fn rows_are_read_by_column_name_with_empty_optional_cells() {
        let rows = parse_baseline(GL, CsvKind::Gl).expect("parses");
        assert_eq!(
            rows,
            [
                BaselineRow {
                    mode: "pipeline".into(),
                    agents: 100,
                    median_ms: 10.0
                },
                BaselineRow {
                    mode: "naive".into(),
                    agents: 100,
                    median_ms: 40.0
                }
            ]
        );
    }

    #[test]
    fn a_bad_file_names_the_line_and_what_is_wrong() {
        let headless = format!("{SIM_CSV_HEADER}\n");
        let err = parse_baseline(&headless, CsvKind::Gl).unwrap_err();
        assert_eq!(err.0, 1);
        assert!(
            err.1
                .contains("headless (--headless) bench.csv and this run is GL"),
            "{}",
            err.1
        );
        let err = parse_baseline("a,b\n", CsvKind::Gl).unwrap_err();
        assert!(err
            .1
            .starts_with("not a bench.csv: the first line must be `mode,agents,"));
        let short = GL.replace("naive,100,3,40.0000,", "naive,100,");
        assert_eq!(
            parse_baseline(&short, CsvKind::Gl).unwrap_err(),
            (3, "11 cells, the header has 13".to_string())
        );
        let bad = GL.replace("10.0000", "fast");
        assert_eq!(
            parse_baseline(&bad, CsvKind::Gl).unwrap_err(),
            (
                2,
                "frame_ms_median `fast` is not a number of milliseconds".to_string()
            )
        );
        let empty = format!("{CSV_HEADER}\n");
        assert_eq!(
            parse_baseline(&empty, CsvKind::Gl).unwrap_err().1,
            "no rows under the header"
        );
    }

    #[test]
    fn ratios_match_mode_and_size() {
        let old = parse_baseline(GL, CsvKind::Gl).expect("parses");
        let rows = [
            BenchRow::new("pipeline", 100, 5.0),
            BenchRow::new("pipeline", 1000, 9.0),
            BenchRow::new("naive", 100, 60.0),
        ];
        let r = ratios(&rows, &old);
        assert_eq!(r.len(), 2);
        assert_eq!((r[0].ratio, r[1].ratio), (0.5, 1.5));
        let t = baseline_table(&rows, &old, Path::new("old.csv"));
        assert!(
            t.contains("pipeline        100       5.00      10.00     0.50x"),
            "{t}"
        );
        assert!(
            t.contains("pipeline       1000       9.00          -  no match"),
            "{t}"
        );
    }
}
