//! `throng validate`: runs the scenarios headless and writes `validate.csv`, `validate.md` and
//! the plots into a folder.

use std::path::{Path, PathBuf};

use clap::Args;

use super::{plots, run_at, to_csv, to_markdown, Effort, Report, SCENARIOS};

#[derive(Debug, Clone, Args)]
pub struct ValidateArgs {
    /// Folder for validate.csv, validate.md and the PNG plots (created if missing).
    #[arg(long, default_value = "validate-out")]
    pub out: PathBuf,
    /// Smaller, shorter scenarios (what the tests run): about a tenth of the time, same targets.
    #[arg(long)]
    pub quick: bool,
    /// Run only these scenarios (repeat or separate with commas).
    #[arg(long, value_delimiter = ',', value_parser = clap::builder::PossibleValuesParser::new(SCENARIOS))]
    pub only: Vec<String>,
    /// Simulation steps per second: 60 (the game's default) or 30 (a crowd ticking at half
    /// the frame rate); the targets are the same.
    #[arg(long, default_value_t = 60, value_parser = parse_hz)]
    pub hz: u32,
}

fn parse_hz(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(hz) if super::arena::RATES.contains(&hz) => Ok(hz),
        _ => Err(format!("`{s}` is not a simulation rate; allowed: 60 or 30")),
    }
}

/// What a run ends with: the table to print, and whether every target was met.
pub struct Outcome {
    pub table: String,
    pub failures: usize,
}

pub fn run_validate(args: &ValidateArgs) -> Result<Outcome, String> {
    crate::files::prepare_out_dir(&args.out)?;
    let effort = if args.quick {
        Effort::Quick
    } else {
        Effort::Full
    };
    let started = crate::clock::Instant::now();
    let report = run_at(args.hz, effort, &args.only, |what| {
        eprintln!("validate: {what}")
    });
    write_report(&report, &args.out)?;
    let failures = report.failures();
    let mut table = to_markdown(&report.rows);
    table.push_str(&format!(
        "\n{} rows, {} with a target, {} missed, stepped at {} Hz; {:.0} s; written to {}\n",
        report.rows.len(),
        report.rows.iter().filter(|r| r.has_target()).count(),
        failures.len(),
        args.hz,
        started.elapsed().as_secs_f32(),
        args.out.display()
    ));
    Ok(Outcome {
        table,
        failures: failures.len(),
    })
}

/// validate.csv, validate.md and one PNG per plot, as one set (`files::write_set`): all of them
/// are replaced, or, when any cannot be written, none is, so the folder never mixes two runs.
pub fn write_report(report: &Report, dir: &Path) -> Result<(), String> {
    let mut files = Vec::new();
    for (name, chart) in plots::all(report) {
        files.push((dir.join(name), chart.png()?));
    }
    files.push((
        dir.join("validate.md"),
        to_markdown(&report.rows).into_bytes(),
    ));
    // The table scripts read goes last.
    files.push((dir.join("validate.csv"), to_csv(&report.rows).into_bytes()));
    crate::files::write_set(&files).map_err(|e| e.to_string())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::{counterflow, Row};

    fn report(measured: f32) -> Report {
        Report {
            effort: Effort::Quick,
            rows: vec![Row::new(
                "fundamental_diagram",
                "density",
                2.0,
                measured,
                "m/s",
                0.455,
                0.758,
            )],
            fundamental: Vec::new(),
            fundamental_starts: Vec::new(),
            bottleneck: Vec::new(),
            counterflow: counterflow::Outcome {
                times: Vec::new(),
                order: Vec::new(),
                corrections: Default::default(),
            },
            attraction: None,
            rimea: None,
            alarm: Vec::new(),
        }
    }

    #[test]
    fn a_run_whose_table_cannot_be_written_leaves_the_last_run_whole() {
        let dir = tempfile::tempdir().expect("temp dir");
        write_report(&report(0.66), dir.path()).expect("first run");
        let csv = std::fs::read(dir.path().join("validate.csv")).expect("csv");
        let md = std::fs::read(dir.path().join("validate.md")).expect("md");
        // validate.md cannot be replaced (a folder took its name): nothing of the run lands.
        std::fs::remove_file(dir.path().join("validate.md")).expect("rm");
        std::fs::create_dir(dir.path().join("validate.md")).expect("mkdir");
        let e = write_report(&report(0.5), dir.path()).expect_err("validate.md is a folder");
        assert_eq!(
            e,
            format!(
                "cannot write {}: a folder has that name",
                dir.path().join("validate.md").display()
            )
        );
        assert_eq!(
            std::fs::read(dir.path().join("validate.csv")).expect("csv"),
            csv,
            "the CSV of the last run stays"
        );
        assert!(String::from_utf8_lossy(&csv).contains(",0.6600,"));
        std::fs::remove_dir(dir.path().join("validate.md")).expect("rmdir");
        write_report(&report(0.5), dir.path()).expect("second run");
        assert_ne!(
            std::fs::read(dir.path().join("validate.md")).expect("md"),
            md
        );
        let mut names: Vec<_> = std::fs::read_dir(dir.path())
            .expect("ls")
            .map(|e| e.expect("entry").file_name())
            .collect();
        names.sort();
        assert_eq!(
            names,
            ["validate.csv", "validate.md"],
            "no temporaries left"
        );
    }
}
