//! The drill itself: spawn, settle, raise the alarm, step until everyone is out, the limit
//! passes or nothing can change any more; the step cost measured on the way.

use glam::Vec2;

use crate::clock::Instant;
use crate::crowd::evacuation::{ExitStatus, PersonAlarm, WorstDensity};
use crate::crowd::{default_threads, Crowd, StepInputs};
use crate::level::Level;

/// Simulated seconds the crowd walks before the alarm: the normal steps that are timed.
pub const SETTLE_SECONDS: f32 = 5.0;
/// Seconds between progress lines.
const PROGRESS_EVERY: f32 = 10.0;
/// Seconds between checks whether anything can still change.
const STUCK_CHECK_EVERY: f32 = 1.0;
/// Evacuating steps with at least this share of the people still inside are also timed apart:
/// the same crowd as the normal steps, now fleeing.
pub const CROWDED_SHARE: f32 = 0.9;

/// What to run.
#[derive(Debug, Clone, PartialEq)]
pub struct Drill {
    pub people: usize,
    pub seed: u64,
    /// Where a local alarm sounds (heard as the level says); None: the drill's alarm, heard
    /// everywhere, at `default_alarm_point`.
    pub alarm: Option<Vec2>,
    /// Simulated seconds after the alarm.
    pub limit: f32,
    pub threads: Option<usize>,
}

impl Drill {
    /// The level's own crowd size and seed, the drill's alarm, 600 s.
    pub fn for_level(level: &Level) -> Drill {
        Drill {
            people: level.crowd.count as usize,
            seed: level.crowd.seed,
            alarm: None,
            limit: DEFAULT_LIMIT_SECONDS,
            threads: None,
        }
    }
}

/// Seconds after the alarm a drill waits for everyone by default: ten minutes, well past any
/// sensible evacuation time of a public space.
pub const DEFAULT_LIMIT_SECONDS: f32 = 600.0;

/// Where the alarm point came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AlarmPlace {
    /// `--alarm X,Z`.
    Given,
    /// The level's earliest timed alarm (`alarms`), where its designer expects one.
    LevelAlarm,
    /// No alarms in the level: the middle of where the crowd starts (the spawn zones'
    /// centres weighted by their share of the crowd).
    SpawnCentre,
    /// Neither alarms nor spawn zones: the middle of the bounds.
    BoundsCentre,
}

/// The alarm point when `--alarm` is not given: the level's earliest alarm event, else the
/// middle of the spawn zones, else of the bounds.
pub fn default_alarm_point(level: &Level) -> (Vec2, AlarmPlace) {
    let earliest = level
        .alarms
        .iter()
        .filter(|a| a.at.is_finite() && a.position.is_finite())
        .min_by(|a, b| a.at.total_cmp(&b.at));
    if let Some(a) = earliest {
        return (a.position, AlarmPlace::LevelAlarm);
    }
    let weight: f32 = level.spawn_zones.iter().map(|z| z.weight.max(0.0)).sum();
    if weight > 0.0 {
        let sum: Vec2 = level
            .spawn_zones
            .iter()
            .map(|z| z.center * z.weight.max(0.0))
            .sum();
        return (sum / weight, AlarmPlace::SpawnCentre);
    }
    (level.bounds.center(), AlarmPlace::BoundsCentre)
}

/// Who hears the alarm when it is raised.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Hearing {
    /// A drill: everyone, wherever they are.
    Everyone,
    /// As the level says: within `radius` in open space, `radius * behind_walls` past walls;
    /// the rest by contagion.
    Level { radius: f32, behind_walls: f32 },
}

/// Wall-clock cost of a run of steps.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StepCost {
    pub steps: u64,
    pub total_ms: f64,
    /// Sum over the steps of the people inside (not parked outside).
    pub person_steps: f64,
}

impl StepCost {
    fn add(&mut self, ms: f64, inside: usize) {
        self.steps += 1;
        self.total_ms += ms;
        self.person_steps += inside as f64;
    }

    pub fn mean_ms(&self) -> Option<f64> {
        (self.steps > 0).then(|| self.total_ms / self.steps as f64)
    }

    /// Microseconds per person inside per step.
    pub fn us_per_person(&self) -> Option<f64> {
        (self.person_steps > 0.0).then(|| self.total_ms * 1000.0 / self.person_steps)
    }
}

/// Why someone is still inside at the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stuck {
    /// Never heard the alarm nor saw anyone flee.
    NeverAlarmed,
    /// Alarmed, but no open exit can be reached from where they are.
    NoWayOut,
    /// Alarmed and able to reach an exit, but not out yet (a queue, or still reacting).
    OnTheWay,
}

/// One person inside at the end.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LeftInside {
    pub at: Vec2,
    pub why: Stuck,
}

/// Everything a finished drill reports.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub level_name: String,
    pub people: usize,
    pub seed: u64,
    pub alarm_at: Vec2,
    pub alarm_place: AlarmPlace,
    pub hearing: Hearing,
    pub step_hz: u32,
    pub threads: usize,
    pub limit: f32,
    /// Seconds after the alarm when the last person got out; None: someone never did.
    pub emptied_at: Option<f32>,
    /// Seconds simulated after the alarm.
    pub ran_for: f32,
    /// Set when the run stopped before the limit because nothing could change any more.
    pub stopped_early: bool,
    pub exits: Vec<ExitStatus>,
    pub worst: WorstDensity,
    /// The pressure map's cell edge (m; densities are over 2 x 2 cells).
    pub pressure_cell: f32,
    /// Windows of the pressure map that went above `DANGER_DENSITY` at some point.
    pub windows_over: usize,
    /// People who heard the alarm when it was raised (the rest caught it from others, or not).
    pub heard_at_once: usize,
    pub left_inside: Vec<LeftInside>,
    /// The settling steps before the alarm.
    pub normal: StepCost,
    /// Every step after it.
    pub evacuating: StepCost,
    /// The steps after it while at least `CROWDED_SHARE` of the people were inside.
    pub crowded: StepCost,
    /// Raising the alarm (the exits' distance fields are built then).
    pub alarm_ms: f64,
}

impl Outcome {
    pub fn out(&self) -> usize {
        self.people - self.left_inside.len()
    }

    pub fn everyone_out(&self) -> bool {
        self.left_inside.is_empty()
    }
}

/// The level as the drill runs it, who hears the alarm and where it sounds. The drill's
/// alarm reaches everyone: its hearing radius is set past the bounds' diagonal (no two points
/// inside are further apart) and walls no longer shorten it.
fn drill_level(level: &Level, drill: &Drill) -> (Level, Hearing, Vec2, AlarmPlace) {
    let mut level = level.clone();
    match drill.alarm {
        Some(at) => {
            let alarm = &level.crowd.behaviour.alarm;
            let hearing = Hearing::Level {
                radius: alarm.hearing_radius,
                behind_walls: alarm.behind_walls,
            };
            (level, hearing, at, AlarmPlace::Given)
        }
        None => {
            let (at, place) = default_alarm_point(&level);
            let alarm = &mut level.crowd.behaviour.alarm;
            alarm.hearing_radius = level.bounds.size().length() + 1.0;
            alarm.behind_walls = 1.0;
            (level, Hearing::Everyone, at, place)
        }
    }
}

fn timed(crowd: &mut Crowd, dt: f32) -> f64 {
    let started = Instant::now();
    crowd.step(dt, &StepInputs::default());
    started.elapsed().as_secs_f64() * 1000.0
}

/// Runs the drill; `progress` gets a line now and then (for stderr).
pub fn run(level: &Level, drill: &Drill, progress: &mut dyn FnMut(&str)) -> Outcome {
    let (level, hearing, alarm_at, alarm_place) = drill_level(level, drill);
    let mut crowd = Crowd::from_level(&level, drill.people, drill.seed);
    crowd.set_threads(drill.threads);
    let step_hz = level.crowd.tick_hz.max(1);
    let dt = 1.0 / step_hz as f32;
    let mut normal = StepCost::default();
    for _ in 0..(SETTLE_SECONDS / dt).round() as u64 {
        let ms = timed(&mut crowd, dt);
        normal.add(ms, crowd.len());
    }
    let started = Instant::now();
    crowd.raise_alarm(alarm_at);
    let alarm_ms = started.elapsed().as_secs_f64() * 1000.0;
    let heard_at_once = (0..crowd.len())
        .filter(|&i| crowd.alarm_of(i) != PersonAlarm::Calm)
        .count();
    let mut evacuating = StepCost::default();
    let mut crowded = StepCost::default();
    let steps = (drill.limit / dt).ceil() as u64;
    let (progress_steps, check_steps) = (
        ((PROGRESS_EVERY / dt).round() as u64).max(1),
        ((STUCK_CHECK_EVERY / dt).round() as u64).max(1),
    );
    let mut stopped_early = false;
    for s in 1..=steps {
        if crowd.is_empty() {
            break;
        }
        let ms = timed(&mut crowd, dt);
        let inside = crowd.len() - crowd.evacuation().out();
        evacuating.add(ms, inside);
        if inside as f32 >= CROWDED_SHARE * crowd.len() as f32 {
            crowded.add(ms, inside);
        }
        if inside == 0 {
            break;
        }
        if s % progress_steps == 0 {
            progress(&format!(
                "{:.0} s: {} of {} out, {} on the way (last step {ms:.1} ms)",
                s as f32 * dt,
                crowd.evacuation().out(),
                crowd.len(),
                crowd.evacuation().fleeing(),
            ));
        }
        if s % check_steps == 0 && nothing_can_change(&crowd) {
            stopped_early = true;
            progress(&format!(
                "{:.0} s: nobody inside can reach an open exit or will hear the alarm; stopping",
                s as f32 * dt
            ));
            break;
        }
    }
    let measured = Measured {
        hearing,
        alarm_at,
        alarm_place,
        step_hz,
        stopped_early,
        normal,
        evacuating,
        crowded,
        alarm_ms,
        heard_at_once,
    };
    finish(&crowd, drill, measured)
}

/// What the run measured on the way, for `finish`.
struct Measured {
    hearing: Hearing,
    alarm_at: Vec2,
    alarm_place: AlarmPlace,
    step_hz: u32,
    stopped_early: bool,
    normal: StepCost,
    evacuating: StepCost,
    crowded: StepCost,
    alarm_ms: f64,
    heard_at_once: usize,
}

/// True when nobody inside is on the way out and nobody alarmed can reach an open exit: then
/// nobody will ever leave (contagion needs someone fleeing, and a headless drill opens no exits).
fn nothing_can_change(crowd: &Crowd) -> bool {
    (0..crowd.len()).all(|i| match crowd.alarm_of(i) {
        PersonAlarm::Fleeing(_) => false,
        PersonAlarm::Heard => !can_reach_exit(crowd, crowd.pos[i]),
        PersonAlarm::Calm | PersonAlarm::Calming | PersonAlarm::Out(_) => true,
    })
}

fn can_reach_exit(crowd: &Crowd, p: Vec2) -> bool {
    let ev = crowd.evacuation();
    (0..ev.exits().len()).any(|k| ev.distance_to_exit(k, p).is_finite())
}

fn finish(crowd: &Crowd, drill: &Drill, m: Measured) -> Outcome {
    let ev = crowd.evacuation();
    let alarm = ev.alarm();
    let left_inside = (0..crowd.len())
        .filter(|&i| !crowd.is_out(i))
        .map(|i| LeftInside {
            at: crowd.pos[i],
            why: match crowd.alarm_of(i) {
                PersonAlarm::Calm | PersonAlarm::Calming => Stuck::NeverAlarmed,
                _ if !can_reach_exit(crowd, crowd.pos[i]) => Stuck::NoWayOut,
                _ => Stuck::OnTheWay,
            },
        })
        .collect();
    let pressure = ev.pressure();
    Outcome {
        level_name: crowd.level().name.clone(),
        people: crowd.len(),
        seed: drill.seed,
        alarm_at: m.alarm_at,
        alarm_place: m.alarm_place,
        hearing: m.hearing,
        step_hz: m.step_hz,
        threads: drill.threads.unwrap_or_else(default_threads),
        limit: drill.limit,
        emptied_at: alarm.and_then(|a| a.emptied_at).or_else(|| {
            // Nobody to evacuate: out at once.
            crowd.is_empty().then_some(0.0)
        }),
        ran_for: alarm.map_or(0.0, |a| a.elapsed),
        stopped_early: m.stopped_early,
        exits: ev.exits().to_vec(),
        worst: pressure.worst(),
        pressure_cell: pressure.cell,
        windows_over: pressure.seconds_over.iter().filter(|&&s| s > 0.0).count(),
        heard_at_once: m.heard_at_once,
        left_inside,
        normal: m.normal,
        evacuating: m.evacuating,
        crowded: m.crowded,
        alarm_ms: m.alarm_ms,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 20 x 20 m room, people spawned west of the middle, with `rest` spliced in at the end
    /// (exits, alarms).
    fn room(rest: &str) -> Level {
        let text = format!(
            r#"Level(name: "t", bounds: (min: (-10.0, -10.0), max: (10.0, 10.0)),
            obstacles: [],
            spawn_zones: [
                (name: "a", center: (-4.0, 0.0), half_extents: (2.0, 2.0), weight: 3.0),
                (name: "b", center: (4.0, 4.0), half_extents: (1.0, 1.0)),
            ],
            crowd: (count: 20, models: [], variant_groups: [], walk_speed: (min: 1.0, max: 1.2),
                seed: 3),
            hero: (model: "x", spawn: (0.0, 0.0)),
            {rest})"#
        );
        ron::from_str(&text).expect("test level parses")
    }

    const EAST_DOOR: &str = r#"exits: [(name: "east", area: Line((10.0, -1.0), (10.0, 1.0)))]"#;

    #[test]
    fn the_alarm_point_is_the_earliest_alarm_else_the_spawn_zones_middle() {
        let (at, place) = default_alarm_point(&room(""));
        // Weights 3 and 1: three quarters of the way to zone a's centre.
        assert_eq!((at, place), (Vec2::new(-2.0, 1.0), AlarmPlace::SpawnCentre));
        let level =
            room("alarms: [(at: 50.0, position: (1.0, 1.0)), (at: 20.0, position: (-3.0, 2.0))]");
        assert_eq!(
            default_alarm_point(&level),
            (Vec2::new(-3.0, 2.0), AlarmPlace::LevelAlarm)
        );
        let mut bare = room("");
        bare.spawn_zones.clear();
        assert_eq!(
            default_alarm_point(&bare),
            (Vec2::ZERO, AlarmPlace::BoundsCentre)
        );
    }

    #[test]
    fn a_drill_empties_a_room_and_its_counts_agree() {
        let level = room(EAST_DOOR);
        let mut drill = Drill::for_level(&level);
        drill.threads = Some(1);
        let o = run(&level, &drill, &mut |_| {});
        assert!(o.everyone_out(), "{:?}", o.left_inside);
        assert_eq!(o.hearing, Hearing::Everyone);
        assert_eq!(o.heard_at_once, 20, "a drill's alarm reaches everyone");
        assert_eq!(o.exits[0].through(), 20);
        let emptied = o.emptied_at.expect("emptied");
        assert_eq!(o.exits[0].crossings.last(), Some(&emptied));
        assert_eq!(o.normal.steps, 300, "5 s at 60 Hz");
        assert!(o.evacuating.steps > 0 && !o.stopped_early);
    }

    #[test]
    fn a_closed_door_stops_the_run_early_with_everyone_inside() {
        let level =
            room(r#"exits: [(name: "east", area: Line((10.0, -1.0), (10.0, 1.0)), closed: true)]"#);
        let o = run(&level, &Drill::for_level(&level), &mut |_| {});
        assert_eq!(o.left_inside.len(), 20);
        assert!(o.left_inside.iter().all(|p| p.why == Stuck::NoWayOut));
        assert!(o.stopped_early && o.ran_for < 10.0, "{}", o.ran_for);
        assert_eq!(o.emptied_at, None);
    }
}
