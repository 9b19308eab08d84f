//! What a drill writes: the one-line summary, `evacuation.csv` (people through and flow per
//! exit, every second) and `evacuation.md` (the report).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use glam::Vec2;

use super::run::{
    AlarmPlace, Hearing, LeftInside, Outcome, StepCost, Stuck, CROWDED_SHARE, SETTLE_SECONDS,
};
use crate::crowd::evacuation::{ExitStatus, DANGER_DENSITY};
use crate::level::check::grouped;

/// Seconds of the window the flow is measured over.
pub const FLOW_WINDOW: f32 = 5.0;
/// Seconds between samples of the CSV and the plot.
pub const SAMPLE_EVERY: f32 = 1.0;
/// Edge of the cells the people left inside are counted in (m).
pub const STUCK_CELL: f32 = 5.0;
/// Cells listed in the report (the fullest first).
const STUCK_ROWS: usize = 20;

/// The CSV's header line.
pub const CSV_HEADER: &str = "time_s,exit,people_through,flow_per_s";

/// The one line a drill ends with: `evacuated N of N in T s; worst density D /m² at (x, z) for
/// S s`, or `in >LIMIT s` when someone never got out.
pub fn summary(o: &Outcome) -> String {
    let time = match o.emptied_at {
        Some(t) if o.everyone_out() => format!("{t:.1} s"),
        _ => format!(">{} s", seconds(o.limit)),
    };
    format!(
        "evacuated {} of {} in {time}; worst density {:.1} /m² at ({:.1}, {:.1}) for {:.1} s",
        o.out(),
        o.people,
        o.worst.density,
        o.worst.at.x,
        o.worst.at.y,
        o.worst.seconds_over
    )
}

/// Whole seconds without a fraction, else one decimal.
fn seconds(s: f32) -> String {
    if s.fract() == 0.0 {
        format!("{s:.0}")
    } else {
        format!("{s:.1}")
    }
}

/// The sample times: every `SAMPLE_EVERY` from the alarm to the first at or after the end of
/// the run, so the last sample holds every crossing.
pub fn sample_times(o: &Outcome) -> Vec<f32> {
    let end = o.emptied_at.unwrap_or(o.ran_for);
    let n = (end / SAMPLE_EVERY).ceil().max(0.0) as usize;
    (0..=n).map(|k| k as f32 * SAMPLE_EVERY).collect()
}

/// People through `exit` by `t` (seconds after the alarm).
pub fn through_by(exit: &ExitStatus, t: f32) -> usize {
    exit.crossings.partition_point(|&c| c <= t)
}

/// A CSV field: quoted when it holds a comma, a quote or a line break.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// `evacuation.csv`: per sample time and exit, the people through so far and the flow over
/// the last `FLOW_WINDOW` seconds.
pub fn csv(o: &Outcome) -> String {
    let mut out = String::from(CSV_HEADER);
    out.push('\n');
    for t in sample_times(o) {
        for e in &o.exits {
            let _ = writeln!(
                out,
                "{t:.0},{},{},{:.2}",
                csv_field(&e.name),
                through_by(e, t),
                e.flow(t, FLOW_WINDOW)
            );
        }
    }
    out
}

/// One exit's figures over the run.
#[derive(Debug, Clone, PartialEq)]
pub struct ExitFigures {
    pub through: usize,
    /// Seconds after the alarm of its last person.
    pub last: Option<f32>,
    /// People over the seconds from its first to its last person (needs two).
    pub mean_flow: Option<f32>,
    /// The highest `FLOW_WINDOW` flow at the sample times.
    pub peak_flow: f32,
}

pub fn exit_figures(o: &Outcome, e: &ExitStatus) -> ExitFigures {
    let (first, last) = (e.crossings.first().copied(), e.crossings.last().copied());
    let mean_flow = match (first, last) {
        (Some(a), Some(b)) if e.through() >= 2 && b > a => Some(e.through() as f32 / (b - a)),
        _ => None,
    };
    let peak_flow = sample_times(o)
        .into_iter()
        .map(|t| e.flow(t, FLOW_WINDOW))
        .fold(0.0, f32::max);
    ExitFigures {
        through: e.through(),
        last,
        mean_flow,
        peak_flow,
    }
}

/// People left inside counted per `STUCK_CELL` cell: (cell's low corner, total, never
/// alarmed, no way out, on the way), the fullest cells first.
pub fn stuck_cells(left: &[LeftInside]) -> Vec<(Vec2, [usize; 4])> {
    let mut cells: BTreeMap<(i32, i32), [usize; 4]> = BTreeMap::new();
    for p in left {
        let key = (
            (p.at.x / STUCK_CELL).floor() as i32,
            (p.at.y / STUCK_CELL).floor() as i32,
        );
        let c = cells.entry(key).or_default();
        c[0] += 1;
        c[match p.why {
            Stuck::NeverAlarmed => 1,
            Stuck::NoWayOut => 2,
            Stuck::OnTheWay => 3,
        }] += 1;
    }
    let mut rows: Vec<(Vec2, [usize; 4])> = cells
        .into_iter()
        .map(|((x, z), c)| (Vec2::new(x as f32, z as f32) * STUCK_CELL, c))
        .collect();
    // Fullest first; the sort is stable, so equal cells stay in x, then z order.
    rows.sort_by(|a, b| b.1[0].cmp(&a.1[0]));
    rows
}

fn fmt_opt(v: Option<f32>, decimals: usize) -> String {
    v.map_or_else(|| "-".to_string(), |v| format!("{v:.decimals$}"))
}

fn n(v: usize) -> String {
    grouped(v as u64)
}

/// `evacuation.md`.
pub fn markdown(o: &Outcome, level_path: &Path) -> String {
    let mut md = format!("# Evacuation drill: {}\n\n", o.level_name);
    md.push_str(&setup_text(o, level_path));
    md.push_str(&outcome_text(o));
    md.push_str(&exits_table(o));
    md.push_str(&density_text(o));
    md.push_str(&left_inside_text(o));
    md.push_str(&cost_table(o));
    md
}

fn setup_text(o: &Outcome, level_path: &Path) -> String {
    let place = match o.alarm_place {
        AlarmPlace::Given => "given by `--alarm`",
        AlarmPlace::LevelAlarm => "the level's earliest timed alarm",
        AlarmPlace::SpawnCentre => "the middle of the spawn zones; the level has no timed alarms",
        AlarmPlace::BoundsCentre => "the middle of the bounds; the level has no timed alarms",
    };
    let alarm = match o.hearing {
        Hearing::Everyone => format!(
            "then the drill's alarm sounded at ({:.1}, {:.1}) ({place}): everyone heard it at \
             once, wherever they were, and moved after their own pre-movement time \
             (`crowd.behaviour.alarm.reaction_seconds`)",
            o.alarm_at.x, o.alarm_at.y
        ),
        Hearing::Level {
            radius,
            behind_walls,
        } => format!(
            "then an alarm sounded at ({:.1}, {:.1}) ({place}), heard within {radius:.0} m ({:.0} \
             m past walls) as the level's `crowd.behaviour.alarm` says: {} people heard it, the \
             rest could only catch it from people fleeing",
            o.alarm_at.x,
            o.alarm_at.y,
            radius * behind_walls,
            n(o.heard_at_once)
        ),
    };
    format!(
        "`{}`: {} people (seed {}), stepped at {} Hz on {} threads. The crowd walked for {} s, \
         {alarm}. Limit: {} s after the alarm.\n\n",
        crate::shown::one_line(&level_path.display().to_string()),
        n(o.people),
        o.seed,
        o.step_hz,
        o.threads,
        seconds(SETTLE_SECONDS),
        seconds(o.limit),
    )
}

fn outcome_text(o: &Outcome) -> String {
    let mut s = match o.emptied_at {
        Some(t) if o.everyone_out() => format!("**Everyone was out {t:.1} s after the alarm.**"),
        _ => format!(
            "**{} of {} got out; {} were still inside {} s after the alarm.**",
            n(o.out()),
            n(o.people),
            n(o.left_inside.len()),
            seconds(o.limit)
        ),
    };
    if o.exits.is_empty() {
        s.push_str(" The level has no exits (`exits` in the level file).");
    }
    if o.stopped_early {
        let _ = write!(
            s,
            " The run stopped {:.0} s after the alarm: nobody inside was on the way out or could \
             reach an open exit, and nobody else would hear the alarm, so nothing would change \
             before the limit.",
            o.ran_for
        );
    }
    s.push_str("\n\n");
    s
}

fn exits_table(o: &Outcome) -> String {
    if o.exits.is_empty() {
        return "## Exits\n\nNone.\n\n".to_string();
    }
    let mut s = String::from(
        "## Exits\n\n| exit | last person out (s) | people through | mean flow (/s) | \
         peak flow (/s) | capacity (/s) | utilisation |\n|---|---:|---:|---:|---:|---:|---:|\n",
    );
    for e in &o.exits {
        let f = exit_figures(o, e);
        let name = crate::shown::one_line(&e.name).replace('|', "\\|");
        let closed = if e.closed { " (closed)" } else { "" };
        let utilisation = f.mean_flow.map_or("-".to_string(), |m| {
            format!("{:.0} %", 100.0 * m / e.capacity)
        });
        let _ = writeln!(
            s,
            "| {name}{closed} | {} | {} | {} | {:.2} | {:.1} | {utilisation} |",
            fmt_opt(f.last, 1),
            n(f.through),
            fmt_opt(f.mean_flow, 2),
            f.peak_flow,
            e.capacity,
        );
    }
    let _ = write!(
        s,
        "\nMean flow: the people through an exit over the seconds from its first to its last \
         person; peak flow: the highest flow over a {} s window, sampled every {} s; \
         utilisation: the mean flow over the exit's capacity. The flow over time: \
         `evacuation.csv`, `evacuation.png`.\n\n",
        seconds(FLOW_WINDOW),
        seconds(SAMPLE_EVERY)
    );
    s
}

fn density_text(o: &Outcome) -> String {
    let w = &o.worst;
    let window = 2.0 * o.pressure_cell;
    let worst = format!(
        "{:.1} people per m² (over a {window:.1} x {window:.1} m window) at ({:.1}, {:.1})",
        w.density, w.at.x, w.at.y
    );
    let body = if w.density > DANGER_DENSITY {
        format!(
            "The worst: {worst}, above {DANGER_DENSITY} per m² for {:.1} s there; {} windows \
             went above {DANGER_DENSITY} per m² at some time.",
            w.seconds_over,
            n(o.windows_over)
        )
    } else {
        format!("The density never went above {DANGER_DENSITY} per m²; the worst: {worst}.")
    };
    format!("## Worst density\n\n{body} Sampled every 0.5 s after the alarm.\n\n")
}

fn left_inside_text(o: &Outcome) -> String {
    let mut s = String::from("## Left inside\n\n");
    if o.left_inside.is_empty() {
        s.push_str("Nobody.\n\n");
        return s;
    }
    let count = |why| o.left_inside.iter().filter(|p| p.why == why).count();
    let _ = write!(
        s,
        "{} people: {} never alarmed, {} alarmed but with no open exit they could reach, {} \
         still on the way out. Where they were at the end, by {} m cell (the fullest first):\n\n\
         | where: x, z (m) | people | never alarmed | no reachable exit | on the way |\n\
         |---|---:|---:|---:|---:|\n",
        n(o.left_inside.len()),
        n(count(Stuck::NeverAlarmed)),
        n(count(Stuck::NoWayOut)),
        n(count(Stuck::OnTheWay)),
        seconds(STUCK_CELL)
    );
    let cells = stuck_cells(&o.left_inside);
    for (corner, c) in cells.iter().take(STUCK_ROWS) {
        let far = *corner + Vec2::splat(STUCK_CELL);
        let _ = writeln!(
            s,
            "| {:.0} to {:.0}, {:.0} to {:.0} | {} | {} | {} | {} |",
            corner.x,
            far.x,
            corner.y,
            far.y,
            n(c[0]),
            n(c[1]),
            n(c[2]),
            n(c[3])
        );
    }
    if cells.len() > STUCK_ROWS {
        let rest: usize = cells[STUCK_ROWS..].iter().map(|(_, c)| c[0]).sum();
        let _ = writeln!(
            s,
            "\nand {} more people in {} more cells.",
            n(rest),
            n(cells.len() - STUCK_ROWS)
        );
    }
    s.push('\n');
    s
}

fn cost_row(what: &str, c: &StepCost) -> String {
    format!(
        "| {what} | {} | {} | {} |\n",
        grouped(c.steps),
        fmt_opt(c.mean_ms().map(|v| v as f32), 2),
        fmt_opt(c.us_per_person().map(|v| v as f32), 3),
    )
}

/// How many times `a` is of `b`, e.g. `1.23x`.
fn ratio(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => format!("{:.2}x", a / b),
        _ => "-".to_string(),
    }
}

fn cost_table(o: &Outcome) -> String {
    let mut s = String::from(
        "## Step cost\n\n| steps | count | mean ms | µs per person inside |\n|---|---:|---:|---:|\n",
    );
    s.push_str(&cost_row(
        &format!(
            "normal (the {} s before the alarm)",
            seconds(SETTLE_SECONDS)
        ),
        &o.normal,
    ));
    s.push_str(&cost_row(
        "evacuating (every step after the alarm)",
        &o.evacuating,
    ));
    s.push_str(&cost_row(
        &format!(
            "evacuating while at least {:.0} % were inside",
            CROWDED_SHARE * 100.0
        ),
        &o.crowded,
    ));
    let _ = write!(
        s,
        "\nAn evacuating step costs {} a normal one ({} while at least {:.0} % were inside; \
         people who left are parked outside the grid and cost next to nothing). Raising the \
         alarm took {:.2} ms (the exits' distance fields are built then). Wall-clock times of \
         this run, {} threads.\n",
        ratio(o.evacuating.mean_ms(), o.normal.mean_ms()),
        ratio(o.crowded.mean_ms(), o.normal.mean_ms()),
        CROWDED_SHARE * 100.0,
        o.alarm_ms,
        o.threads
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stuck_people_are_counted_per_cell_fullest_first() {
        let at = |x: f32, z: f32, why| LeftInside {
            at: Vec2::new(x, z),
            why,
        };
        let rows = stuck_cells(&[
            at(1.0, 1.0, Stuck::NeverAlarmed),
            at(-1.0, 1.0, Stuck::NoWayOut),
            at(-2.0, 4.0, Stuck::NoWayOut),
            at(-4.9, 0.1, Stuck::OnTheWay),
        ]);
        assert_eq!(
            rows,
            vec![
                (Vec2::new(-5.0, 0.0), [3, 0, 2, 1]),
                (Vec2::new(0.0, 0.0), [1, 1, 0, 0]),
            ]
        );
    }

    #[test]
    fn csv_fields_with_commas_or_quotes_are_quoted() {
        assert_eq!(csv_field("north"), "north");
        assert_eq!(csv_field("gate, east"), "\"gate, east\"");
        assert_eq!(csv_field("the \"big\" door"), "\"the \"\"big\"\" door\"");
    }

    #[test]
    fn whole_seconds_have_no_fraction() {
        assert_eq!(seconds(600.0), "600");
        assert_eq!(seconds(12.5), "12.5");
    }
}
