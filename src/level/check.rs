//! `throng check`: every problem of level files without a window, as lines or JSON, and the
//! warnings about settings that will be slow (shared with hot reload, which shows them in the
//! HUD).
//!
//! The slowness figures are measured, not guessed: one simulation step costs about
//! [`REFERENCE_NS_PER_PERSON`] per person on the project's 2-core machine (README, "Crowd
//! simulation": the plaza at 100,000 people, 40.9 ms per step, the densest and slowest row of
//! the headless benchmark).

use std::path::Path;

use super::paths::{find_asset_root, Places};
use super::validate::{free_area, RouteCheck};
use super::{check_level_text, read_level_text, Level, LevelError};
use crate::level::locate::FieldMap;

/// Nanoseconds of one 60 Hz simulation step per person on the reference machine (see above).
pub const REFERENCE_NS_PER_PERSON: f64 = 409.0;
/// The frame time the game holds by default (`--frame-budget`), in ms.
pub const FRAME_BUDGET_MS: f64 = 1000.0 / 30.0;
/// Simulation steps per second.
const STEP_HZ: f64 = 60.0;
/// The share of a frame the clock lets catch-up steps take before it drops time.
const SIMULATION_SHARE: f64 = 0.5;
/// People per m² above which walking slows to under half its free speed (Weidmann 1993: about
/// 0.6 m/s at 2 per m² against 1.34 free) and a crowd starts to jam.
pub const COMFORT_DENSITY: f32 = 2.0;
/// Above this many people, drawing everyone at full detail is slow (README, "Rendering": 1,000
/// people at full detail took 3.3 s a frame on llvmpipe against 0.15 s with LOD).
const FULL_DETAIL_PEOPLE: u32 = 1000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// One line of `throng check`'s report.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Problem {
    pub file: String,
    /// 1-based; None when the problem has no place in the text (the file cannot be read).
    pub line: Option<usize>,
    pub col: Option<usize>,
    pub field: String,
    pub message: String,
    /// What would be right (empty when the message says it all).
    pub allowed: String,
    pub severity: Severity,
}

impl Problem {
    fn new(e: &LevelError, severity: Severity) -> Problem {
        let (message, allowed) = match e.message.split_once("; allowed: ") {
            Some((m, a)) => (m.to_string(), a.to_string()),
            None => (e.message.clone(), String::new()),
        };
        Problem {
            file: e.file.clone(),
            line: e.has_position().then_some(e.line),
            col: e.has_position().then_some(e.column),
            field: e.field.clone(),
            message,
            allowed,
            severity,
        }
    }
}

/// `file:line:col: field: message; allowed: ...`, the level error format; warnings say so
/// after the field.
impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Names and paths are data (kept raw in --json); a line shows them escaped, so a name
        // with a newline or an escape sequence stays one line and never reaches the terminal.
        use crate::shown::{one_line, shown};
        write!(f, "{}:", shown(&self.file))?;
        if let (Some(l), Some(c)) = (self.line, self.col) {
            write!(f, "{l}:{c}:")?;
        }
        write!(f, " ")?;
        if !self.field.is_empty() {
            write!(f, "{}: ", one_line(&self.field))?;
        }
        if self.severity == Severity::Warning {
            write!(f, "warning: ")?;
        }
        write!(f, "{}", one_line(&self.message))?;
        if !self.allowed.is_empty() {
            write!(f, "; allowed: {}", one_line(&self.allowed))?;
        }
        Ok(())
    }
}

/// A slowness warning: the field it is about and its message (`...; allowed: ...`); shown as
/// `field: warning: message`, as `throng check` prints it after the position.
#[derive(Debug, Clone, PartialEq)]
pub struct SlowSetting {
    pub field: String,
    pub message: String,
}

impl std::fmt::Display for SlowSetting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: warning: {}", self.field, self.message)
    }
}

/// Thousands separated by commas, as the README writes them.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Down to three significant figures, at least to hundreds: "about 20,300", not "about 20,374".
fn round_down(n: u64) -> u64 {
    let mut step = 100;
    while n / step >= 1000 {
        step *= 10;
    }
    n / step * step
}

/// The most people the reference machine steps in real time inside the default frame budget:
/// the clock lets the steps of one frame take half of it.
pub fn people_within_budget() -> u64 {
    let step_ms = FRAME_BUDGET_MS * SIMULATION_SHARE / (STEP_HZ * FRAME_BUDGET_MS / 1000.0);
    (step_ms * 1e6 / REFERENCE_NS_PER_PERSON) as u64
}

/// What will make `people` on `level` slow (a valid level; empty when nothing will): more people
/// than the frame budget steps, more than the free ground holds comfortably, LOD distances that
/// draw everyone at full detail. Shared by `throng check` and hot reload.
pub fn slowness_warnings(level: &Level, people: u32) -> Vec<SlowSetting> {
    let mut out = Vec::new();
    let budget = people_within_budget();
    if u64::from(people) > budget {
        let step_ms = f64::from(people) * REFERENCE_NS_PER_PERSON / 1e6;
        let allowed_ms = FRAME_BUDGET_MS * SIMULATION_SHARE / (STEP_HZ * FRAME_BUDGET_MS / 1000.0);
        out.push(SlowSetting {
            field: "crowd.count".into(),
            message: format!(
                "{} people will not keep real time: one simulation step of them takes about {step_ms:.0} ms \
                 ({REFERENCE_NS_PER_PERSON:.0} ns a person, measured on a 2-core machine, README), and a \
                 {FRAME_BUDGET_MS:.1} ms frame leaves {allowed_ms:.1} ms a step; allowed: about {} people for 30 fps",
                grouped(people.into()),
                grouped(round_down(budget))
            ),
        });
    }
    let area = free_area(level);
    let comfortable = (area * COMFORT_DENSITY) as u64;
    if people > 0 && u64::from(people) > comfortable {
        out.push(SlowSetting {
            field: "crowd.count".into(),
            message: format!(
                "{} people on {} m² of free ground is {:.1} per m²: above {COMFORT_DENSITY} per m² walking \
                 slows to under half its free speed and crowds jam (Weidmann), and every step costs more; \
                 allowed: about {} people at {COMFORT_DENSITY} per m²",
                grouped(people.into()),
                grouped(area as u64),
                people as f32 / area.max(1.0),
                grouped(round_down(comfortable))
            ),
        });
    }
    let diagonal = level.bounds.size().length();
    if people > FULL_DETAIL_PEOPLE && level.lod.near >= diagonal {
        let millions = |tris: f64| f64::from(people) * tris / 1e6;
        out.push(SlowSetting {
            field: "lod.near".into(),
            message: format!(
                "{} m reaches across the whole level (its diagonal is {diagonal:.0} m): all {} people are \
                 drawn at full detail, 5,400 to 7,000 triangles each ({:.0} to {:.0} million); allowed: \
                 below {diagonal:.0} m (the default is 18)",
                level.lod.near,
                grouped(people.into()),
                millions(5400.0),
                millions(7000.0)
            ),
        });
    }
    out
}

/// The hero's motion files that will not load because nothing usable is there: the game falls
/// back to the authored motion with a warning, and `throng check` says so first. (Whether a file
/// that is there retargets is the hero loader's to find out: it parses the model.)
pub fn motion_warnings(level: &Level, places: &Places) -> Vec<SlowSetting> {
    let roles = [
        ("idle", &level.hero.motion.idle),
        ("walk", &level.hero.motion.walk),
        ("run", &level.hero.motion.run),
        ("wave", &level.hero.motion.wave),
    ];
    let mut out = Vec::new();
    for (role, source) in roles {
        let file = match source {
            super::MotionSource::Clip { file, .. } | super::MotionSource::Vrma(file) => file,
            super::MotionSource::Authored => continue,
        };
        if places.resolve(file).is_ok() {
            continue;
        }
        // Loading kept the full path of what is there (`resolve_paths`); name that.
        let what = match places.locate(file) {
            Some(full) => format!("`{}` is not a regular file", full.display()),
            None => format!("`{file}` does not exist; {}", places.looked_in(file)),
        };
        out.push(SlowSetting {
            field: format!("hero.motion.{role}"),
            message: format!(
                "{what}; the authored {role} is used instead; allowed: a glTF, GLB, VRM or VRMA \
                 file"
            ),
        });
    }
    out
}

/// A level that has people but no open exit: an alarm would send them nowhere. Not an error:
/// a level without alarms never needs one.
pub fn exit_warnings(level: &Level) -> Vec<SlowSetting> {
    if level.spawn_zones.is_empty() || level.exits.iter().any(|e| !e.closed) {
        return Vec::new();
    }
    let what = if level.exits.is_empty() {
        "the level has no exits"
    } else {
        "every exit starts closed"
    };
    vec![SlowSetting {
        field: "exits".into(),
        message: format!(
            "{what}: when an alarm sounds nobody has a way out, and an evacuation needs one; \
             allowed: at least one exit that is not `closed` (docs/LEVELS.md, Exits)"
        ),
    }]
}

/// Every problem of one level file: errors (a file that cannot be read or parsed has one;
/// validation reports every field that is wrong), then, for a valid level, its slowness warnings.
/// The checks that need the crowd's route grid are left out (see [`check_file_with`]).
pub fn check_file(path: &Path) -> Vec<Problem> {
    check_file_with(path, None)
}

/// [`check_file`], and for a level that validates, `routes` (the checks over the crowd's route
/// grid, which `level` cannot make itself: `level_routes::unreachable_exits`): its findings are
/// errors, and a level with any gets no warnings, like any other invalid level.
pub fn check_file_with(path: &Path, routes: Option<RouteCheck>) -> Vec<Problem> {
    let label = path.display().to_string();
    let source = match read_level_text(path) {
        Ok(s) => s,
        Err(e) => return vec![Problem::new(&e, Severity::Error)],
    };
    let places = Places::for_file(path, &find_asset_root(path));
    let (level, errors) = check_level_text(&source, &label, &places);
    if !errors.is_empty() {
        return errors
            .iter()
            .map(|e| Problem::new(e, Severity::Error))
            .collect();
    }
    let Some(level) = level else {
        return Vec::new();
    };
    let fields = FieldMap::new(&source);
    let problem = |field: String, message: String, severity: Severity| {
        let pos = fields.position_of(&field);
        let e = LevelError {
            file: label.clone(),
            line: pos.line,
            column: pos.col,
            field,
            message,
        };
        Problem::new(&e, severity)
    };
    let unreachable = routes.map_or_else(Vec::new, |check| check(&level));
    if !unreachable.is_empty() {
        return unreachable
            .into_iter()
            .map(|f| problem(f.field, f.message, Severity::Error))
            .collect();
    }
    let mut warnings = motion_warnings(&level, &places);
    warnings.extend(exit_warnings(&level));
    warnings.extend(slowness_warnings(&level, level.crowd.count));
    warnings
        .into_iter()
        .map(|w| problem(w.field, w.message, Severity::Warning))
        .collect()
}

/// What `throng check` prints: the problem lines (or the JSON array) on stdout, a summary for
/// stderr, and whether any error was found (exit status 1).
#[derive(Debug, Clone, PartialEq)]
pub struct CheckReport {
    pub stdout: String,
    pub summary: String,
    pub failed: bool,
}

/// `throng check` over `paths`; `routes` as in [`check_file_with`].
pub fn check_files(
    paths: &[impl AsRef<Path>],
    json: bool,
    routes: Option<RouteCheck>,
) -> CheckReport {
    let problems: Vec<Problem> = paths
        .iter()
        .flat_map(|p| check_file_with(p.as_ref(), routes))
        .collect();
    let errors = problems
        .iter()
        .filter(|p| p.severity == Severity::Error)
        .count();
    let warnings = problems.len() - errors;
    let stdout = if json {
        serde_json::to_string_pretty(&problems).unwrap_or_else(|_| "[]".to_string())
    } else {
        problems
            .iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    };
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    CheckReport {
        stdout,
        summary: format!(
            "throng check: {} checked: {}, {}",
            plural(paths.len(), "level", "levels"),
            plural(errors, "error", "errors"),
            plural(warnings, "warning", "warnings")
        ),
        failed: errors > 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_figure_follows_the_measurement() {
        // 33.3 ms frames, half for the simulation, two 60 Hz steps: 8.33 ms a step.
        assert_eq!(people_within_budget(), 20_374);
        assert_eq!(grouped(1_234_567), "1,234,567");
        assert_eq!(grouped(999), "999");
        assert_eq!(round_down(20_374), 20_300);
        assert_eq!(round_down(3_138), 3_100);
        assert_eq!(round_down(51_304), 51_300);
        assert_eq!(round_down(256_520), 256_000);
    }
}
