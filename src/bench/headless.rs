//! The headless benchmark: per size, the simulation at full rate and with the simulation LOD
//! (unless `--no-sim-lod`), each with its phases, plus culling and packing; no window.

use super::args::{BenchArgs, BenchMode};
use super::estimate::{announce_plan, calibration_sizes, CostModel, RunCost};
use super::report::{sim_csv, SimRow, SimSamples};
use super::{bench_game, camera_for_frame, timed_cpu_frame_of, Machine, PackedCrowd, BENCH_ASPECT};
use crate::clock::Instant;
use crate::game::{Game, SimViewPolicy};
use crate::level::{Level, Placed, ThingKind};
use glam::Vec2;

/// The simulation variants the headless benchmark compares in one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SimVariant {
    /// Everyone steered every step.
    Full,
    /// People the camera cannot see steered every 4th step.
    SimLod,
    /// Everyone steered every step, on the level with `sandbox_things` placed: shows, queues
    /// and fences on top of the plain crowd (`--sandbox`).
    Sandbox,
}

impl SimVariant {
    pub fn name(self) -> &'static str {
        match self {
            SimVariant::Full => "full",
            SimVariant::SimLod => "sim-lod",
            SimVariant::Sandbox => "sandbox",
        }
    }
}

/// What the sandbox variant places: two performers facing the fountain from north and south,
/// two food stands, and ten fences as two lines of crowd barriers in the square (one across
/// the north-south path, so walkers route round it).
pub fn sandbox_things() -> Vec<Placed> {
    let thing = |name: String, kind, at: Vec2, heading_deg| Placed {
        name,
        kind,
        at,
        heading_deg,
    };
    let mut things = vec![
        thing(
            "performer_south".into(),
            ThingKind::Performer,
            Vec2::new(0.0, 28.0),
            180.0,
        ),
        thing(
            "performer_north".into(),
            ThingKind::Performer,
            Vec2::new(0.0, -28.0),
            0.0,
        ),
        thing(
            "stand_west".into(),
            ThingKind::FoodStand,
            Vec2::new(-20.0, -30.0),
            0.0,
        ),
        thing(
            "stand_east".into(),
            ThingKind::FoodStand,
            Vec2::new(20.0, -30.0),
            0.0,
        ),
    ];
    for k in 0..5 {
        let x = 20.0 + 3.0 * k as f32;
        things.push(thing(
            format!("fence_e{k}"),
            ThingKind::Fence,
            Vec2::new(x, 15.0),
            0.0,
        ));
        things.push(thing(
            format!("fence_w{k}"),
            ThingKind::Fence,
            Vec2::new(-x, -15.0),
            0.0,
        ));
    }
    things
}

/// `level` with `sandbox_things` placed, each checked with `check_fit` as the build toolbar
/// does; the first that does not fit is the error.
pub fn sandbox_level(level: &Level) -> Result<Level, String> {
    let mut with = level.clone();
    for t in sandbox_things() {
        crate::crowd::placing::check_fit(&with, &t)
            .map_err(|m| format!("the sandbox's `{}` does not fit this level: {m}", t.name))?;
        with.placed.push(t);
    }
    Ok(with)
}

/// What the headless benchmark measured, and what it expected to take.
pub struct HeadlessRun {
    pub rows: Vec<SimRow>,
    pub estimated_ms: f64,
}

/// The plain level and, when the sandbox variant runs, the level with its things placed.
struct Levels<'a> {
    plain: &'a Level,
    sandbox: Option<Level>,
}

impl Levels<'_> {
    fn of(&self, variant: SimVariant) -> &Level {
        match (variant, &self.sandbox) {
            (SimVariant::Sandbox, Some(l)) => l,
            _ => self.plain,
        }
    }
}

/// One headless run's kind: a variant at a crowd step rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Run {
    variant: SimVariant,
    hz: u32,
}

impl Run {
    /// The row's name: the variant's, with the rate after it when it is not the world's 60 Hz
    /// (`full-30hz`), so rows of both rates sit in one table.
    fn name(self) -> String {
        if self.hz == crate::level::CROWD_TICK_RATES[0] {
            self.variant.name().to_string()
        } else {
            format!("{}-{}hz", self.variant.name(), self.hz)
        }
    }

    /// Wall seconds of one measured frame: one crowd step at this rate (two world steps at
    /// 30 Hz; 1/30 is exactly twice 1/60 in binary, so the clock never splits them).
    fn frame_seconds(self) -> f64 {
        1.0 / f64::from(self.hz.max(1))
    }
}

fn variant_game(levels: &Levels, agents: u32, seed: u64, run: Run) -> Game {
    let level = levels.of(run.variant);
    let mut game = bench_game(level, agents, seed);
    game.set_crowd_tick_hz(Some(run.hz));
    game.sim_view_policy = (run.variant == SimVariant::SimLod).then_some(SimViewPolicy {
        aspect: BENCH_ASPECT,
        far: level.lod.far,
    });
    game
}

/// Frame `i` of `n` on the camera path: (step ms, cull and pack ms, visible).
fn frame(
    game: &mut Game,
    level: &Level,
    (i, n): (u32, u32),
    run: Run,
    packed: &mut PackedCrowd,
) -> (f64, f64, usize) {
    let camera = camera_for_frame(level, i, n);
    game.camera = camera;
    timed_cpu_frame_of(
        game,
        BenchMode::Pipeline,
        &camera,
        packed,
        run.frame_seconds(),
    )
}

/// Mean frame time (ms) of `run` at `agents` (one frame to settle, then three timed), and
/// what setting the run up took.
fn calibrate(levels: &Levels, seed: u64, run: Run, agents: u32) -> (f64, f64) {
    let level = levels.plain;
    let setup_start = Instant::now();
    let mut game = variant_game(levels, agents, seed, run);
    let setup = setup_start.elapsed().as_secs_f64() * 1000.0;
    let mut packed = PackedCrowd::default();
    let mut sum = 0.0;
    for i in 0..4 {
        let (sim, cull, _) = frame(&mut game, level, (i, 4), run, &mut packed);
        if i > 0 {
            sum += sim + cull;
        }
    }
    (sum / 3.0, setup)
}

pub fn run_headless(args: &BenchArgs, level: &Level) -> HeadlessRun {
    let mut variants = vec![SimVariant::Full];
    if !args.no_sim_lod {
        variants.push(SimVariant::SimLod);
    }
    let mut levels = Levels {
        plain: level,
        sandbox: None,
    };
    if args.sandbox {
        match sandbox_level(level) {
            Ok(l) => {
                levels.sandbox = Some(l);
                variants.push(SimVariant::Sandbox);
            }
            Err(e) => eprintln!("bench: --sandbox: {e}; the sandbox variant is left out"),
        }
    }
    let levels = &levels;
    let runs: Vec<Run> = args
        .crowd_rates(level.crowd.tick_hz)
        .into_iter()
        .flat_map(|hz| variants.iter().map(move |&variant| Run { variant, hz }))
        .collect();
    let machine = Machine::here();
    let (warmup, frames) = (args.warmup(), args.frames());
    let total = warmup + frames;
    let (small, large) = calibration_sizes(args.sizes());
    let models: Vec<RunCost> = runs
        .iter()
        .map(|&v| {
            let (frame_small, setup_small) = calibrate(levels, args.seed, v, small);
            let (frame_large, setup_large) = calibrate(levels, args.seed, v, large);
            RunCost {
                frame: CostModel::fit((small, frame_small), (large, frame_large)),
                setup: CostModel::fit((small, setup_small), (large, setup_large)),
            }
        })
        .collect();
    let mut progress = announce_plan(args.sizes(), &models, total, (small, large), "variant");
    let estimated_ms = progress.total_ms();
    let mut rows = Vec::new();
    let mut packed = PackedCrowd::default();
    for &agents in args.sizes() {
        for &run in &runs {
            let mut game = variant_game(levels, agents, args.seed, run);
            let mut s = SimSamples::default();
            let name = run.name();
            for i in 0..total {
                let (sim, cull, visible) = frame(&mut game, level, (i, total), run, &mut packed);
                if i >= warmup {
                    s.push(sim, cull, visible, game.agents.timings());
                }
                progress.frame(&name, agents, i, total, warmup);
            }
            rows.push(s.row(&name, agents, game.agents.close_pairs(0.35), &machine));
            super::save_rows_so_far(args, &sim_csv(&rows));
            progress.run_done();
        }
    }
    HeadlessRun { rows, estimated_ms }
}
