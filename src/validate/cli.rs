//! `throng validate`: runs the scenarios headless and writes `validate.csv`, `validate.md` and
//! the plots into a folder.

use std::path::{Path, PathBuf};

use clap::Args;

use super::{plots, run, to_csv, to_markdown, Effort, Report, SCENARIOS};

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
    let report = run(effort, &args.only, |what| eprintln!("validate: {what}"));
    write_report(&report, &args.out)?;
    let failures = report.failures();
    let mut table = to_markdown(&report.rows);
    table.push_str(&format!(
        "\n{} rows, {} with a target, {} missed; {:.0} s; written to {}\n",
        report.rows.len(),
        report.rows.iter().filter(|r| r.has_target()).count(),
        failures.len(),
        started.elapsed().as_secs_f32(),
        args.out.display()
    ));
    Ok(Outcome {
        table,
        failures: failures.len(),
    })
}

/// validate.csv, validate.md and one PNG per plot, each written whole or not at all.
pub fn write_report(report: &Report, dir: &Path) -> Result<(), String> {
    let write = |name: &str, bytes: &[u8]| {
        crate::files::write_atomic(&dir.join(name), bytes).map_err(|e| e.to_string())
    };
    write("validate.csv", to_csv(&report.rows).as_bytes())?;
    write("validate.md", to_markdown(&report.rows).as_bytes())?;
    for (name, chart) in plots::all(report) {
        chart.write_png(&dir.join(name))?;
    }
    Ok(())
}
