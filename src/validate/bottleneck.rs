//! Bottleneck flow (Seyfried et al. 2009, Kretz et al. 2006, Liao et al. 2014): a hundred people
//! in a waiting area leave through a door in a wall; the flow through the door per metre of its
//! width is compared with the laboratory's range, and the room after the door must clear.

use glam::Vec2;

use super::arena::{dt, spread, walled_level, Arrangement, Wall};
use super::{Effort, Row};
use crate::crowd::{Crowd, StepInputs};

pub const WIDTHS: [f32; 5] = [0.8, 1.2, 1.6, 2.0, 2.4];
/// Specific flow through a bottleneck in the experiments (people per second per metre).
pub const SPECIFIC_FLOW: (f32, f32) = (1.3, 2.2);
const WALL_X: f32 = 0.0;
const WALL_THICKNESS: f32 = 0.4;
/// Half the height of the waiting area and of the room after the door (m).
const HALF_HEIGHT: f32 = 6.0;
/// How far inside the door's edges people aim (m): a body's radius and a little.
const DOOR_MARGIN: f32 = 0.3;
/// After the last person is through, the strip just past the door must be empty this soon (s).
const CLEAR_WITHIN: f32 = 10.0;
/// People in the waiting area: 1.5 per m² of its 7.5 x 9 m.
const PEOPLE: usize = 100;

/// The least-squares slope of specific flow against door width must lie in this range (people
/// per second per metre, per metre of width): flat or slightly rising, as in Seyfried et al.
/// 2009 and Liao et al. 2014, where the specific flow stays near 1.6 to 2 from 0.8 to 2.4 m.
pub const SLOPE: (f32, f32) = (-0.1, 0.3);

#[derive(Debug, Clone, Copy)]
pub struct Outcome {
    pub arrangement: Arrangement,
    pub seed: u64,
    pub width: f32,
    /// People per second through the door in the steady middle of the run.
    pub flow: f32,
    /// People still in the strip just past the door `CLEAR_WITHIN` s after the last passed.
    pub left_behind_door: usize,
    /// People who never got through.
    pub stuck: usize,
    /// What the constraint pass moved over the run.
    pub corrections: crate::crowd::Corrections,
}

impl Outcome {
    pub fn specific_flow(&self) -> f32 {
        self.flow / self.width
    }
}

pub fn measure(width: f32, effort: Effort, seed: u64, arrangement: Arrangement) -> Outcome {
    // A hundred in the quick run too: with fewer, a wide door drains the waiting area before
    // its flow is steady, and the trend over the widths drowns in the noise.
    let people = PEOPLE;
    let door = width * 0.5;
    let wall_far = WALL_X + WALL_THICKNESS;
    let walls = [
        Wall::between(
            Vec2::new(WALL_X, -HALF_HEIGHT - 1.0),
            Vec2::new(wall_far, -door),
        ),
        Wall::between(
            Vec2::new(WALL_X, door),
            Vec2::new(wall_far, HALF_HEIGHT + 1.0),
        ),
    ];
    let level = walled_level(
        Vec2::new(-9.0, -HALF_HEIGHT),
        Vec2::new(16.0, HALF_HEIGHT),
        &walls,
        (1.24, 1.44),
    );
    let mut rng = fastrand::Rng::with_seed(seed);
    let starts = arrangement.place(
        people,
        Vec2::new(-8.5, -4.5),
        Vec2::new(-1.0, 4.5),
        &mut rng,
    );
    // Goals spread over the room after the door, so arrivals do not block those behind them.
    let goals = spread(people, Vec2::new(6.0, -5.0), Vec2::new(15.0, 5.0), &mut rng);
    // Each heads for the part of the door nearest them, as people in the experiments use its
    // whole width: one aim point for everyone would squeeze a wide door's flow into its middle.
    let usable = (door - DOOR_MARGIN).max(0.0);
    let agents: Vec<(Vec2, Vec<Vec2>)> = starts
        .into_iter()
        .zip(goals)
        .map(|(start, goal)| {
            let through_door = Vec2::new(wall_far + 0.8, start.y.clamp(-usable, usable));
            (start, vec![through_door, goal])
        })
        .collect();
    let mut crowd = Crowd::with_fixed_routes(&level, &agents, seed);
    crowd.measure_corrections = true;
    let mut passed_at: Vec<Option<f32>> = vec![None; people];
    let max_steps = (effort.pick(240.0, 150.0) / dt()) as usize;
    let mut last_pass = None;
    let mut left_behind_door = 0;
    for step in 0..max_steps {
        crowd.step(dt(), &StepInputs::default());
        let t = (step + 1) as f32 * dt();
        for (i, passed) in passed_at.iter_mut().enumerate() {
            if passed.is_none() && crowd.pos[i].x > WALL_X + WALL_THICKNESS * 0.5 {
                *passed = Some(t);
            }
        }
        if last_pass.is_none() && passed_at.iter().all(Option::is_some) {
            last_pass = Some(t);
        }
        if last_pass.is_some_and(|l| t >= l + CLEAR_WITHIN) {
            left_behind_door = crowd
                .pos
                .iter()
                .filter(|p| p.x > wall_far && p.x < wall_far + 2.0 && p.y.abs() < door + 1.0)
                .count();
            break;
        }
    }
    let mut times: Vec<f32> = passed_at.iter().flatten().copied().collect();
    times.sort_by(f32::total_cmp);
    let stuck = people - times.len();
    // The steady middle: from the 10th to the 90th percent of the people through.
    let (a, b) = (people / 10, people * 9 / 10);
    let flow = match (times.get(a), times.get(b)) {
        (Some(&ta), Some(&tb)) if tb > ta => (b - a) as f32 / (tb - ta),
        _ => 0.0,
    };
    Outcome {
        arrangement,
        seed,
        width,
        flow,
        left_behind_door: if last_pass.is_some() {
            left_behind_door
        } else {
            people
        },
        stuck,
        corrections: crowd.corrections,
    }
}

pub fn rows(outcomes: &[Outcome]) -> Vec<Row> {
    let mut rows = Vec::new();
    for o in outcomes {
        rows.extend(run_rows("bottleneck", "width", o));
        rows.push(Row::new(
            "bottleneck_flow",
            "width",
            o.width,
            o.flow,
            "1/s",
            f32::NAN,
            f32::NAN,
        ));
        rows.push(Row::new(
            "bottleneck_jam_after_door",
            "width",
            o.width,
            o.left_behind_door as f32,
            "people",
            0.0,
            0.0,
        ));
        rows.extend(super::correction_rows(
            "bottleneck",
            "width",
            o.width,
            &o.corrections,
        ));
    }
    rows.push(slope_row("bottleneck_slope", "width range", outcomes));
    for w in outcomes.windows(2) {
        rows.push(Row::new(
            "bottleneck_flow_growth",
            "width",
            w[1].width,
            w[1].flow - w[0].flow,
            "1/s",
            0.0,
            f32::NAN,
        ));
    }
    rows
}

/// Least-squares slope of the specific flow against the door width over `outcomes`.
pub fn slope(outcomes: &[Outcome]) -> f32 {
    let n = outcomes.len() as f32;
    if n < 2.0 {
        return f32::NAN;
    }
    let mean_w = outcomes.iter().map(|o| o.width).sum::<f32>() / n;
    let mean_q = outcomes.iter().map(Outcome::specific_flow).sum::<f32>() / n;
    let (mut cov, mut var) = (0.0, 0.0);
    for o in outcomes {
        cov += (o.width - mean_w) * (o.specific_flow() - mean_q);
        var += (o.width - mean_w) * (o.width - mean_w);
    }
    cov / var
}

/// The slope's row, with the widths' middle as its parameter.
fn slope_row(test: &str, parameter: &str, outcomes: &[Outcome]) -> Row {
    let middle = outcomes.iter().map(|o| o.width).sum::<f32>() / outcomes.len().max(1) as f32;
    Row::new(
        test,
        parameter,
        middle,
        slope(outcomes),
        "1/m/s per m",
        SLOPE.0,
        SLOPE.1,
    )
}

/// The rows of the runs from other starts (`starts`, each arrangement and seed over all of
/// `WIDTHS` in order): specific flow in the band, nobody stuck and the slope, per start; and
/// the spread of the specific flow over every start, the main run's included, per width.
pub fn start_rows(main: &[Outcome], starts: &[Outcome]) -> Vec<Row> {
    let mut rows = Vec::new();
    for run in starts.chunks(WIDTHS.len()) {
        let Some(first) = run.first() else { continue };
        let name = format!("bottleneck_{}", first.arrangement.name());
        let parameter = format!("width (seed {})", first.seed);
        for o in run {
            rows.extend(run_rows(&name, &parameter, o));
        }
        rows.push(slope_row(
            &format!("{name}_slope"),
            &format!("width range (seed {})", first.seed),
            run,
        ));
    }
    for m in main {
        let flows: Vec<f32> = std::iter::once(m)
            .chain(starts.iter().filter(|o| o.width == m.width))
            .map(Outcome::specific_flow)
            .collect();
        rows.push(Row::new(
            "bottleneck_spread",
            "width",
            m.width,
            super::range_width(&flows),
            "1/m/s",
            f32::NAN,
            f32::NAN,
        ));
    }
    rows
}

/// A run's specific flow against the laboratory's band, and its people who never got through.
fn run_rows(name: &str, parameter: &str, o: &Outcome) -> [Row; 2] {
    let (low, high) = SPECIFIC_FLOW;
    [
        Row::new(
            name,
            parameter,
            o.width,
            o.specific_flow(),
            "1/m/s",
            low,
            high,
        ),
        Row::new(
            &format!("{name}_stuck"),
            parameter,
            o.width,
            o.stuck as f32,
            "people",
            0.0,
            0.0,
        ),
    ]
}
