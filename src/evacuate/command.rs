//! `throng evacuate` and `throng check --evacuate`: the level loaded and every value checked
//! before any work, the drill run, its files written as one set.

use std::path::{Path, PathBuf};

use super::args::EvacuateArgs;
use super::run::{run, Drill, Outcome};
use super::{plot, report};
use crate::level::validate::check_crowd_fits;
use crate::level::{find_asset_root, load_level, Level};
use crate::shown::shown;

/// Why the command failed, and so its exit status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// A file or value was refused before any work (exit status 2, like clap's own).
    Refused(String),
    /// The drill ran but its files could not be written (exit status 1).
    Writing(String),
}

impl Failure {
    pub fn exit_status(&self) -> u8 {
        match self {
            Failure::Refused(_) => 2,
            Failure::Writing(_) => 1,
        }
    }

    pub fn message(&self) -> &str {
        match self {
            Failure::Refused(m) | Failure::Writing(m) => m,
        }
    }
}

/// A finished drill: what to print (the summary last) and whether everyone got out.
#[derive(Debug, Clone, PartialEq)]
pub struct Done {
    pub stdout: String,
    pub everyone_out: bool,
}

/// The level as the game loads it; a bad file is refused with the loader's one line.
pub(crate) fn load(path: &Path) -> Result<Level, Failure> {
    load_level(path, &find_asset_root(path)).map_err(|e| Failure::Refused(e.to_string()))
}

/// Checks the command line's values against the level: the crowd fits, the alarm is inside.
fn check_against_level(args: &EvacuateArgs, level: &Level) -> Result<(), Failure> {
    if let Some(people) = args.people {
        check_crowd_fits(level, "--people", people).map_err(Failure::Refused)?;
    }
    if let Some(at) = args.alarm {
        let b = level.bounds;
        if at.cmplt(b.min).any() || at.cmpgt(b.max).any() {
            return Err(Failure::Refused(format!(
                "--alarm {},{}: outside `{}`; allowed: x from {} to {}, z from {} to {} (the \
                 level's bounds)",
                at.x,
                at.y,
                crate::shown::one_line(&level.name),
                b.min.x,
                b.max.x,
                b.min.y,
                b.max.y
            )));
        }
    }
    Ok(())
}

/// `throng evacuate`: `progress` gets the lines for stderr.
pub fn run_evacuate(args: &EvacuateArgs, progress: &mut dyn FnMut(&str)) -> Result<Done, Failure> {
    let level = load(&args.level)?;
    check_against_level(args, &level)?;
    // Created last, once everything else is known to be fine: a refused run leaves no folders.
    crate::files::prepare_out_dir(&args.out).map_err(Failure::Refused)?;
    let drill = Drill {
        people: args.people.unwrap_or(level.crowd.count) as usize,
        seed: args.seed.unwrap_or(level.crowd.seed),
        alarm: args.alarm,
        limit: args.limit,
        threads: args.threads,
    };
    // The level check's word on exits, as hints: the drill still runs, and its report shows
    // what they mean for the people.
    let routes = crate::level_routes::unreachable_exits(&level);
    for w in crate::level::check::exit_warnings(&level) {
        progress(&format!("warning: {}: {}", w.field, w.message));
    }
    for f in routes {
        progress(&format!("warning: {}: {}", f.field, f.message));
    }
    progress(&format!(
        "{}: {} people, {} s to settle, then the alarm; at most {} s",
        shown(&args.level.display().to_string()),
        drill.people,
        super::run::SETTLE_SECONDS,
        drill.limit
    ));
    let outcome = run(&level, &drill, progress);
    let written = write_files(&outcome, &args.level, &args.out).map_err(Failure::Writing)?;
    let mut stdout = report::markdown(&outcome, &args.level);
    for path in written {
        stdout.push_str(&format!("wrote {}\n", shown(&path.display().to_string())));
    }
    stdout.push_str(&report::summary(&outcome));
    Ok(Done {
        stdout,
        everyone_out: outcome.everyone_out(),
    })
}

/// evacuation.png, evacuation.md and evacuation.csv as one set (`files::write_set`): all are
/// replaced, or none is.
pub fn write_files(o: &Outcome, level_path: &Path, dir: &Path) -> Result<Vec<PathBuf>, String> {
    let files = vec![
        (dir.join("evacuation.png"), plot::flow_chart(o).png()?),
        (
            dir.join("evacuation.md"),
            report::markdown(o, level_path).into_bytes(),
        ),
        // The table scripts read goes last.
        (dir.join("evacuation.csv"), report::csv(o).into_bytes()),
    ];
    crate::files::write_set(&files).map_err(|e| e.to_string())
}

/// `throng check --evacuate`: each level that loads evacuated with its own crowd size, seed
/// and the drill's alarm, no files written; one `LEVEL: summary` line each, and whether one did
/// not empty. Levels that do not load are skipped (the check has reported them).
pub fn evacuate_levels(paths: &[PathBuf], progress: &mut dyn FnMut(&str)) -> (String, bool) {
    let mut lines = Vec::new();
    let mut failed = false;
    for path in paths {
        let Ok(level) = load(path) else {
            continue;
        };
        let label = shown(&path.display().to_string());
        progress(&format!("evacuating {label}: {} people", level.crowd.count));
        let outcome = run(&level, &Drill::for_level(&level), &mut |_| {});
        failed |= !outcome.everyone_out();
        lines.push(format!("{label}: {}", report::summary(&outcome)));
    }
    (lines.join("\n"), failed)
}
