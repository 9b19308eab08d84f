//! The crowd simulation: agents in structure-of-arrays form, a spatial grid, a small behaviour
//! state machine per agent (stroll, follow paths, linger in groups, sit, watch the fountain,
//! queue at kiosks, react to the hero, scatter and calm down), social-force steering with hard
//! non-overlap constraints, and per-agent animation state. Pure data: no GL.

pub mod anim;
mod animate;
mod behaviour;
mod constraints;
pub mod evacuation;
pub mod exit_field;
pub mod grid;
pub mod groups;
pub mod head_turn;
pub mod nav;
pub mod obstacles;
pub mod placing;
pub mod shows;
pub mod sim_lod;
mod sorted;
mod speed;
mod steering;
pub mod story;
pub mod tick_pose;
pub mod timed_alarms;

use glam::{Vec2, Vec3};
use rayon::prelude::*;

use crate::level::{Level, PointOfInterest};
use anim::{AnimState, ClipKind, ClipSpeeds};
use grid::CellGrid;
use nav::{NavGrid, RouteScratch};
use obstacles::ObstacleField;
pub use sim_lod::SimView;
use sorted::SortedAgents;
pub use steering::simd_level;

/// Radius of a person's body disc in metres: two agents never stand closer than twice this.
pub const BODY_RADIUS: f32 = 0.2;
/// Route searches run per step at most; the rest walk straight meanwhile and wait their turn.
pub const ROUTES_PER_STEP: usize = 8;
/// People per m² a spawn zone takes before further agents spill over the whole plaza.
pub const MAX_SPAWN_DENSITY: f32 = 1.5;
/// Agents spawned per step while the crowd grows, so a big jump of the slider never stalls a
/// frame: about 2.7 µs each in the debug build, so a step's spawning stays within a few ms
/// (20,000 took 50-65 ms). A count rather than a time budget keeps growth deterministic.
pub const SPAWN_PER_STEP: usize = 2_000;

/// What an agent is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AgentState {
    /// Heading for its goal.
    Walking,
    /// Standing at a point of interest, chatting with whoever else is there.
    Lingering,
    Sitting,
    WatchingFountain,
    /// In a kiosk's queue; the front agent is being served.
    Queuing,
    /// Running away from a disturbance.
    Scattering,
    /// Arrived at a fixed goal (scenarios) or nothing to do.
    Idle,
    /// At a place on a show's rings, facing it.
    Watching,
    /// The show watched, clapping before leaving.
    Applauding,
    /// Playing at a show (a performer recruited from the crowd).
    Performing,
    /// Steered by the player.
    Controlled,
    /// Alarmed, heading for an exit.
    Fleeing,
    /// Left through an exit (parked outside the simulation until they come back).
    Evacuated,
}

impl AgentState {
    pub fn label(self) -> &'static str {
        match self {
            AgentState::Walking => "walking",
            AgentState::Lingering => "lingering",
            AgentState::Sitting => "sitting",
            AgentState::WatchingFountain => "watching fountain",
            AgentState::Queuing => "queuing",
            AgentState::Scattering => "scattering",
            AgentState::Idle => "idle",
            AgentState::Watching => "watching a show",
            AgentState::Applauding => "applauding",
            AgentState::Performing => "performing",
            AgentState::Controlled => "steered by the player",
            AgentState::Fleeing => "fleeing",
            AgentState::Evacuated => "left the level",
        }
    }
}

/// Why an agent walks: it decides what happens on arrival.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Plan {
    /// To a point of interest (index), holding a place there.
    Poi(u32),
    /// Along a named path (index), towards waypoint `next`; `left` waypoints before re-planning.
    Path { path: u32, next: u32, left: u32 },
    /// To a random free spot.
    Wander,
    /// To a fixed goal, then stay (scenarios and tools).
    Fixed,
    /// To a place (index) on a show's (index) rings, to watch it.
    Watch { show: u16, place: u16 },
    /// To a show's (index) performer spot, to play there.
    Perform(u16),
}

/// What the world tells the crowd each step.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StepInputs {
    pub hero_position: Option<Vec2>,
    pub hero_velocity: Vec2,
    /// A disturbance (the player's click or key) at this point this step.
    pub disturbance: Option<Vec2>,
    /// What the player sees, for the simulation level of detail: people it cannot see are
    /// steered every `sim_lod::LOW_RATE`th step. None steers everyone every step.
    pub view: Option<SimView>,
    /// The hero waves (standing still, she draws a small audience).
    pub hero_waving: bool,
    /// Which way the hero faces (x, z).
    pub hero_facing: Vec2,
}

/// Wall-clock milliseconds of each phase of the last step (for the benchmark and the lab).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StepTimings {
    /// Sim LOD selection, the grid's counting sort, gathering into and writing back from cell
    /// order.
    pub grid_ms: f64,
    pub plan_ms: f64,
    pub behaviour_ms: f64,
    /// The shows' part of `behaviour_ms`: performers, passers-by deciding, audiences.
    pub shows_ms: f64,
    pub steering_ms: f64,
    /// Integration, non-overlap, hero, obstacles and bounds.
    pub constraints_ms: f64,
    /// Heading and animation state.
    pub animation_ms: f64,
    /// Non-overlap sweeps the step took.
    pub sweeps: u32,
    /// Agents steered this step (everyone without the simulation LOD).
    pub steered: u32,
}

/// How much the constraint pass (non-overlap, obstacles, bounds, the hero) had to move people
/// from where steering put them, summed over the steps since measuring began
/// (`Crowd::measure_corrections`): the share of realism the steering rules owe to the safety
/// net behind them.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Corrections {
    /// People times steps measured.
    pub person_steps: u64,
    /// Of those, the ones moved more than `Corrections::MOVED` (metres).
    pub corrected: u64,
    /// Total distance moved by the pass (metres).
    pub total_m: f64,
    /// The largest single move (metres).
    pub max_m: f32,
}

impl Corrections {
    /// A move under a millimetre is rounding, not a correction.
    pub const MOVED: f32 = 0.001;

    /// The share of person-steps the pass moved someone.
    pub fn share(&self) -> f32 {
        self.corrected as f32 / self.person_steps.max(1) as f32
    }

    /// The mean move of a corrected person (metres).
    pub fn mean_m(&self) -> f32 {
        (self.total_m / self.corrected.max(1) as f64) as f32
    }
}

/// One agent's look: variant group, model, tint and props, picked from the level's groups.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Variant {
    pub group: u16,
    /// Index into `level.crowd.models`.
    pub model: u16,
    /// Bit per `PropKind` in the group's prop list order.
    pub props: u16,
}

pub struct Crowd {
    level: Level,
    seed: u64,
    // Structure of arrays: index i is agent i in every vector.
    pub pos: Vec<Vec2>,
    pub vel: Vec<Vec2>,
    /// Radians about +Y; 0 faces -Z.
    pub heading: Vec<f32>,
    pub pref_speed: Vec<f32>,
    pub goal: Vec<Vec2>,
    /// Waypoints to the goal when an obstacle blocks the straight line (the last one is the goal).
    pub route: Vec<Vec<Vec2>>,
    pub state: Vec<AgentState>,
    pub plan: Vec<Plan>,
    /// Seconds left in the current activity.
    pub timer: Vec<f32>,
    /// Where the agent looks while standing (fountain, group centre, hero).
    pub look_at: Vec<Option<Vec2>>,
    /// Seconds the agent keeps reacting to the hero.
    pub hero_attention: Vec<f32>,
    /// The waypoint each walker passed last, to go back to if a push leaves its next target
    /// out of sight (behind a door post).
    last_waypoint: Vec<Option<Vec2>>,
    pub variant: Vec<Variant>,
    pub color: Vec<Vec3>,
    pub anim: Vec<AnimState>,
    /// The first agent of each agent's walking group (itself when it walks alone): a group is a
    /// run of consecutive agents, its leader first.
    pub group_leader: Vec<u32>,
    /// People in the agent's group (1: alone).
    pub group_size: Vec<u8>,
    /// Where each agent steers this step and how fast, when its group's formation decides;
    /// empty when the level has no groups.
    formation: Vec<groups::FormationTarget>,
    /// Scratch for the formation pass: each walking group's shape, at its leader's index.
    group_shapes: Vec<Option<groups::GroupShape>>,
    /// The chance that a new person starts a group (0: the level has none).
    group_chance: f32,
    rng_state: Vec<u64>,
    // Shared state.
    poi_occupancy: Vec<u32>,
    /// Per queue POI: agents in line, front first.
    queues: Vec<Vec<u32>>,
    /// Per queue POI: where each place in its line stands (bending round obstacles).
    queue_lines: Vec<Vec<Vec2>>,
    /// Per POI: people served at its counter so far.
    served: Vec<u32>,
    /// The shows of placed performers and stages (and the hero's), their names as of the
    /// last change (plans index them), and per agent the shows it has decided about since
    /// its last plan (bit per show).
    shows: Vec<shows::Show>,
    show_names: Vec<String>,
    shows_seen: Vec<u64>,
    /// Each agent's next two plans (the story card shows them; `choose_plan` takes the first).
    agenda: Vec<[story::Intent; 2]>,
    /// The person the player steers, and the speed they walked at before.
    controlled: Option<usize>,
    controlled_speed: f32,
    control_velocity: Vec2,
    /// Extra route searches allowed this step (walkers a new obstacle blocked).
    route_burst: usize,
    /// Seconds each agent has gone unsteered (the simulation LOD), and what this step covers.
    pending_dt: Vec<f32>,
    steer_dt: Vec<f32>,
    active: Vec<bool>,
    /// The one spatial grid; its cell size follows the crowd's density.
    grid: CellGrid,
    /// Hot fields in the grid's cell order, rebuilt each step, and the scratch for gathering
    /// them and writing them back.
    sorted: SortedAgents,
    records: Vec<sorted::HotRecord>,
    outcomes: Vec<sorted::Outcome>,
    obstacles: ObstacleField,
    nav: NavGrid,
    /// One search scratch per simulation thread.
    route_scratch: Vec<RouteScratch>,
    /// Agents waiting for a route search, oldest first.
    route_requests: std::collections::VecDeque<u32>,
    target_count: usize,
    pub clip_speeds: ClipSpeeds,
    steps: u64,
    /// A pool of exactly this many threads (tests, benchmarks); None: rayon's global pool, one
    /// thread per core.
    pool: Option<std::sync::Arc<rayon::ThreadPool>>,
    timings: StepTimings,
    /// Where people are drawn when the crowd ticks slower than the world (`Game` blends it
    /// every frame); empty: drawn where they are.
    pub shown: tick_pose::TickPoses,
    /// When true, every step adds what the constraint pass moved to `corrections` (one copy
    /// of the positions a step; off in the game).
    pub measure_corrections: bool,
    pub corrections: Corrections,
    /// Steering's positions before the constraint pass, kept while measuring corrections.
    steered_scratch: Vec<Vec2>,
    /// Exits, the alarm and each person's part in it.
    evacuation: evacuation::Evacuation,
}

/// One pool for every crowd that asks for no particular thread count: a thread per core,
/// started once. None only if the system refuses threads; then a one-thread pool is tried.
fn default_pool() -> std::sync::Arc<rayon::ThreadPool> {
    static POOL: std::sync::OnceLock<std::sync::Arc<rayon::ThreadPool>> =
        std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        let build = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .thread_name(|i| format!("crowd-{i}"))
                .build()
        };
        // The web (wasm32-unknown-unknown) has no threads at all: there the calling thread
        // is the pool's one worker, and every phase runs on it in the same fixed partitions,
        // so the result is the same as on the desktop's pool.
        let pool = build(0)
            .or_else(|_| build(1))
            .or_else(|_| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(1)
                    .use_current_thread()
                    .build()
            })
            .expect("the crowd needs at least one worker thread");
        std::sync::Arc::new(pool)
    })
    .clone()
}

/// Threads a crowd steps on unless `set_threads` says otherwise.
pub fn default_threads() -> usize {
    default_pool().current_num_threads()
}

/// Grid cell edge (m) for a crowd of `count` on `area` m²: the denser the crowd, the smaller the
/// cells, so that a neighbour scan's box of whole cells stays close to the circle it needs;
/// sparse crowds get large cells so the grid stays small.
fn grid_cell_for(count: usize, area: f32) -> f32 {
    let density = count as f32 / area.max(1.0);
    if density > 2.0 {
        steering::LOOK_AHEAD * 0.25
    } else if density > 0.5 {
        steering::LOOK_AHEAD * 0.5
    } else {
        steering::LOOK_AHEAD
    }
}

/// A small, fast, seedable generator (splitmix64): each agent owns one, so what one agent draws
/// never depends on the order others are updated in.
pub(crate) fn next_random(state: &mut u64) -> f32 {
    (splitmix64(state) >> 40) as f32 / (1u64 << 24) as f32
}

/// The next 64 random bits of a splitmix64 state.
pub(crate) fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Salt of the generator that decides who walks in a group.
const GROUP_SALT: u64 = 0x6A09_E667_F3BC_C909;

fn agent_seed(seed: u64, index: usize) -> u64 {
    let mut s = seed ^ (index as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93);
    next_random(&mut s);
    s
}

impl Crowd {
    /// An empty crowd for a level; `set_count` (or `from_level`) fills it.
    pub fn empty(level: &Level, seed: u64) -> Self {
        let level = &crate::level::sandbox::world_level(level);
        let mut crowd = Crowd {
            seed,
            pos: Vec::new(),
            vel: Vec::new(),
            heading: Vec::new(),
            pref_speed: Vec::new(),
            goal: Vec::new(),
            route: Vec::new(),
            state: Vec::new(),
            plan: Vec::new(),
            timer: Vec::new(),
            look_at: Vec::new(),
            hero_attention: Vec::new(),
            last_waypoint: Vec::new(),
            variant: Vec::new(),
            color: Vec::new(),
            anim: Vec::new(),
            group_leader: Vec::new(),
            group_size: Vec::new(),
            formation: Vec::new(),
            group_shapes: Vec::new(),
            group_chance: groups::start_chance(&level.crowd.groups),
            rng_state: Vec::new(),
            poi_occupancy: vec![0; level.points_of_interest.len()],
            queues: vec![Vec::new(); level.points_of_interest.len()],
            queue_lines: Vec::new(),
            served: vec![0; level.points_of_interest.len()],
            shows: Vec::new(),
            show_names: Vec::new(),
            shows_seen: Vec::new(),
            agenda: Vec::new(),
            controlled: None,
            control_velocity: Vec2::ZERO,
            controlled_speed: 0.0,
            route_burst: 0,
            pending_dt: Vec::new(),
            steer_dt: Vec::new(),
            active: Vec::new(),
            grid: CellGrid::new(
                level.bounds.min,
                level.bounds.max,
                grid_cell_for(0, level.bounds.size().x * level.bounds.size().y),
            ),
            sorted: SortedAgents::default(),
            records: Vec::new(),
            outcomes: Vec::new(),
            obstacles: ObstacleField::new(level, 2.0),
            nav: NavGrid::new(level),
            route_scratch: Vec::new(),
            route_requests: std::collections::VecDeque::new(),
            target_count: 0,
            clip_speeds: ClipSpeeds::default(),
            steps: 0,
            pool: None,
            timings: StepTimings::default(),
            shown: tick_pose::TickPoses::default(),
            measure_corrections: false,
            corrections: Corrections::default(),
            steered_scratch: Vec::new(),
            evacuation: evacuation::Evacuation::new(&level.exits),
            level: level.clone(),
        };
        crowd.build_queue_lines();
        crowd.rebuild_shows();
        crowd
    }

    /// A crowd of `count` agents spawned from the level's zones, all at once. The plaza starts
    /// mid-afternoon, not at opening time: whoever chose a point of interest is already there,
    /// part-way through the activity.
    pub fn from_level(level: &Level, count: usize, seed: u64) -> Self {
        let mut c = Crowd::empty(level, seed);
        c.target_count = count;
        while c.len() < count {
            c.spawn_some(count - c.len());
        }
        for i in 0..c.len() {
            if let Plan::Poi(k) = c.plan[i] {
                c.pos[i] = c.goal[i];
                c.route[i].clear();
                c.arrive_at_poi(i, k);
                c.timer[i] *= next_random(&mut c.rng_state[i]);
            }
        }
        c
    }

    /// A crowd of agents walking from given starts to fixed goals: for scenario tests and tools.
    pub fn with_fixed_goals(level: &Level, starts_goals: &[(Vec2, Vec2)], seed: u64) -> Self {
        let mut c = Crowd::empty(level, seed);
        for &(start, goal) in starts_goals {
            let i = c.push_fixed(start);
            c.set_goal(i, goal);
        }
        c
    }

    /// A crowd of agents each walking a given route (waypoints, the last one its goal) with no
    /// route search: for scenarios whose doors are narrower than the route grid resolves.
    pub fn with_fixed_routes(
        level: &Level,
        starts_routes: &[(Vec2, Vec<Vec2>)],
        seed: u64,
    ) -> Self {
        let mut c = Crowd::empty(level, seed);
        for (start, route) in starts_routes {
            let i = c.push_fixed(*start);
            c.route_requests.retain(|&a| a as usize != i);
            c.goal[i] = route.last().copied().unwrap_or(*start);
            c.route[i] = route.clone();
        }
        c
    }

    /// One more agent at `start`, walking alone on a fixed plan (its goal is set by the caller).
    fn push_fixed(&mut self, start: Vec2) -> usize {
        let i = self.len();
        self.push_agent(i, start, (i as u32, 1));
        self.release_place(i);
        self.plan[i] = Plan::Fixed;
        self.state[i] = AgentState::Walking;
        self.target_count = self.len();
        i
    }

    /// Where person `i` is drawn this frame and facing which way: between the crowd's last two
    /// ticks when it ticks slower than the world, else where they are.
    pub fn drawn_at(&self, i: usize) -> (Vec2, f32) {
        let (pos, heading) = self.drawn_poses();
        (pos[i], heading[i])
    }

    /// Everyone's drawn position and heading (see `drawn_at`).
    pub fn drawn_poses(&self) -> (&[Vec2], &[f32]) {
        if self.shown.pos.len() == self.pos.len() {
            (&self.shown.pos, &self.shown.heading)
        } else {
            (&self.pos, &self.heading)
        }
    }

    pub fn len(&self) -> usize {
        self.pos.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pos.is_empty()
    }

    pub fn level(&self) -> &Level {
        &self.level
    }

    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Runs the simulation on a pool of exactly this many threads; None: one per core (tests
    /// prove the result does not depend on it). A pool that cannot start leaves the default.
    pub fn set_threads(&mut self, threads: Option<usize>) {
        self.pool = threads.and_then(|t| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(t.clamp(1, 64))
                .build()
                .ok()
                .map(std::sync::Arc::new)
        });
    }

    /// Runs `f` on the crowd's thread pool (the one its steps run on): work that goes with the
    /// crowd, as packing it for the renderer, then shares the simulation's threads instead of
    /// waking a second pool.
    pub fn on_pool<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        let pool = self.pool.clone().unwrap_or_else(default_pool);
        pool.install(f)
    }

    /// Keeps the pose before a tick for `shown` (see `TickPoses::remember`), on the pool.
    pub fn remember_shown(&mut self) {
        let pool = self.pool.clone().unwrap_or_else(default_pool);
        let (shown, pos, heading) = (&mut self.shown, &self.pos, &self.heading);
        pool.install(|| shown.remember(pos, heading));
    }

    /// Draws people `alpha` of the way from the previous tick to the last (see
    /// `TickPoses::blend`), on the pool.
    pub fn blend_shown(&mut self, alpha: f32) {
        let pool = self.pool.clone().unwrap_or_else(default_pool);
        let (shown, pos, heading) = (&mut self.shown, &self.pos, &self.heading);
        pool.install(|| shown.blend(pos, heading, alpha));
    }

    /// Phase times of the last step.
    pub fn timings(&self) -> StepTimings {
        self.timings
    }

    /// Agents holding a place at each point of interest (for checks and the debug overlay).
    pub fn poi_occupancy(&self) -> &[u32] {
        &self.poi_occupancy
    }

    /// Agents in line at each point of interest, front first (empty for non-queue POIs).
    pub fn queues(&self) -> &[Vec<u32>] {
        &self.queues
    }

    /// The count the crowd is growing or shrinking towards.
    pub fn target_count(&self) -> usize {
        self.target_count
    }

    /// The crowd-size slider: shrinking happens at once (the highest indices leave, so the rest
    /// keep their identity); growing is spread over steps, `SPAWN_PER_STEP` at a time.
    pub fn set_count(&mut self, count: usize) {
        self.target_count = count;
        if count < self.len() {
            for i in count..self.len() {
                self.release_place(i);
            }
            for q in &mut self.queues {
                q.retain(|&a| (a as usize) < count);
            }
            self.truncate(count);
        }
    }

    pub fn state_label(&self, i: usize) -> &'static str {
        self.state.get(i).map_or("", |s| s.label())
    }

    fn truncate(&mut self, n: usize) {
        self.truncate_alarm_people(n);
        self.pos.truncate(n);
        self.vel.truncate(n);
        self.heading.truncate(n);
        self.pref_speed.truncate(n);
        self.goal.truncate(n);
        self.route.truncate(n);
        self.route_requests.retain(|&a| (a as usize) < n);
        self.state.truncate(n);
        self.plan.truncate(n);
        self.timer.truncate(n);
        self.look_at.truncate(n);
        self.hero_attention.truncate(n);
        self.last_waypoint.truncate(n);
        self.variant.truncate(n);
        self.color.truncate(n);
        self.anim.truncate(n);
        self.group_leader.truncate(n);
        self.group_size.truncate(n);
        self.formation.truncate(n);
        self.trim_last_group(n);
        self.rng_state.truncate(n);
        self.shows_seen.truncate(n);
        self.agenda.truncate(n);
        if self.controlled.is_some_and(|c| c >= n) {
            self.controlled = None;
        }
        self.pending_dt.truncate(n);
        self.steer_dt.truncate(n);
        self.active.truncate(n);
    }

    fn spawn_some(&mut self, wanted: usize) {
        let zones = self.level.spawn_zones.clone();
        let total: f32 = zones.iter().map(|z| z.weight.max(0.0)).sum();
        if zones.is_empty() || total <= 0.0 {
            // Nothing to spawn from: stop growing rather than loop.
            self.target_count = self.len();
            return;
        }
        for _ in 0..wanted.min(SPAWN_PER_STEP) {
            let index = self.len();
            if let Some(group) = self.open_group(index) {
                let p = self.member_spawn(group.0 as usize, index);
                self.push_agent(index, p, group);
                continue;
            }
            let mut rng = agent_seed(self.seed, index);
            let mut pick = next_random(&mut rng) * total;
            let mut zone = &zones[zones.len() - 1];
            for z in &zones {
                pick -= z.weight.max(0.0);
                if pick <= 0.0 {
                    zone = z;
                    break;
                }
            }
            // A zone's share of the first `index` agents must fit it; past that, the extra people
            // spread over the whole plaza instead of piling up in a street end.
            let area = 4.0 * zone.half_extents.x * zone.half_extents.y;
            let share = index as f32 * zone.weight.max(0.0) / total;
            let (centre, half) = if share > area * MAX_SPAWN_DENSITY {
                let b = self.level.bounds;
                (b.center(), b.size() * 0.5 - Vec2::splat(BODY_RADIUS))
            } else {
                (zone.center, zone.half_extents)
            };
            let mut p = centre;
            for _ in 0..24 {
                let t = Vec2::new(next_random(&mut rng), next_random(&mut rng)) * 2.0 - Vec2::ONE;
                p = centre + t * half;
                if self.obstacles.is_free(p, BODY_RADIUS) {
                    break;
                }
            }
            let p = self.obstacles.resolve(p, BODY_RADIUS);
            let group = (index as u32, self.new_group_size(index));
            self.push_agent(
                index,
                p.clamp(self.level.bounds.min, self.level.bounds.max),
                group,
            );
        }
    }

    /// The group (leader, size) agent `index` joins when the one before it started a group that
    /// is not full yet.
    fn open_group(&self, index: usize) -> Option<(u32, u8)> {
        let last = index.checked_sub(1)?;
        let (leader, size) = (self.group_leader[last], self.group_size[last]);
        ((index - leader as usize) < size as usize).then_some((leader, size))
    }

    /// 1 for someone walking alone, else the size of the group agent `index` starts. Drawn from
    /// a generator of its own, so a level without groups draws exactly what it always did.
    fn new_group_size(&self, index: usize) -> u8 {
        if self.group_chance <= 0.0 {
            return 1;
        }
        let mut rng = agent_seed(self.seed ^ GROUP_SALT, index);
        if next_random(&mut rng) < self.group_chance {
            groups::pick_size(&self.level.crowd.groups, &mut rng)
        } else {
            1
        }
    }

    /// A free place within a metre or so of the group's leader.
    fn member_spawn(&self, leader: usize, index: usize) -> Vec2 {
        let mut rng = agent_seed(self.seed ^ GROUP_SALT, index);
        let centre = self.pos[leader];
        let mut p = centre;
        for _ in 0..12 {
            let a = next_random(&mut rng) * std::f32::consts::TAU;
            p = centre + Vec2::from_angle(a) * (0.5 + next_random(&mut rng) * 0.7);
            if self.obstacles.is_free(p, BODY_RADIUS) {
                break;
            }
        }
        let b = self.level.bounds;
        self.obstacles.resolve(p, BODY_RADIUS).clamp(b.min, b.max)
    }

    /// Adds agent `index` at `p`, in `group` (its leader and size), and lets it choose a plan.
    fn push_agent(&mut self, index: usize, p: Vec2, group: (u32, u8)) {
        let mut rng = agent_seed(self.seed ^ 0xA5A5, index);
        let speed = speed::draw_speed(&self.level.crowd.walk_speed, &mut rng);
        let (variant, color) = pick_variant(&self.level, &mut rng);
        self.pos.push(p);
        self.vel.push(Vec2::ZERO);
        self.heading
            .push(next_random(&mut rng) * std::f32::consts::TAU);
        self.pref_speed.push(speed);
        self.goal.push(p);
        self.route.push(Vec::new());
        self.state.push(AgentState::Walking);
        self.plan.push(Plan::Wander);
        self.timer.push(0.0);
        self.look_at.push(None);
        self.hero_attention.push(0.0);
        self.last_waypoint.push(None);
        self.variant.push(variant);
        self.color.push(color);
        // A random phase so the crowd is not in lockstep.
        self.anim
            .push(AnimState::new(ClipKind::Idle, next_random(&mut rng) * 4.0));
        self.group_leader.push(group.0);
        self.group_size.push(group.1);
        if self.group_chance > 0.0 {
            self.formation.push(None);
        }
        self.rng_state.push(rng);
        self.shows_seen.push(0);
        self.agenda.push([story::Intent::Stroll; 2]);
        self.pending_dt.push(0.0);
        self.steer_dt.push(0.0);
        self.active.push(true);
        self.push_alarm_person();
        let i = self.len() - 1;
        self.agenda[i] = [self.draw_intent(i), self.draw_intent(i)];
        self.choose_plan(i);
    }

    /// Advances the crowd by `dt` seconds.
    pub fn step(&mut self, dt: f32, inputs: &StepInputs) {
        let dt = if dt.is_finite() {
            dt.clamp(0.0, 0.1)
        } else {
            0.0
        };
        if self.len() < self.target_count {
            self.spawn_some(self.target_count - self.len());
        }
        if dt == 0.0 || self.is_empty() {
            return;
        }
        // The whole step runs inside the pool: each phase's parallel loop then starts from a
        // worker, instead of waking the pool and blocking this thread once per phase.
        let pool = self.pool.clone().unwrap_or_else(default_pool);
        pool.install(|| self.step_phases(dt, inputs));
        self.steps += 1;
    }

    fn step_phases(&mut self, dt: f32, inputs: &StepInputs) {
        let mut t = StepTimings::default();
        let lap = |since: &mut crate::clock::Instant| {
            let ms = since.elapsed().as_secs_f64() * 1000.0;
            *since = crate::clock::Instant::now();
            ms
        };
        let mut since = crate::clock::Instant::now();
        let area = self.level.bounds.size().x * self.level.bounds.size().y;
        let cell = grid_cell_for(self.len(), area);
        if (self.grid.requested_cell() - cell).abs() > 1e-6 {
            self.grid = CellGrid::new(self.level.bounds.min, self.level.bounds.max, cell);
        }
        t.steered = self.select_steered(dt, inputs.view.as_ref()) as u32;
        self.grid.rebuild(&self.pos);
        t.grid_ms = lap(&mut since);
        self.plan_routes();
        t.plan_ms = lap(&mut since);
        t.shows_ms = self.update_behaviour(dt, inputs);
        self.update_formations();
        t.behaviour_ms = lap(&mut since);
        let mut sorted = std::mem::take(&mut self.sorted);
        let mut records = std::mem::take(&mut self.records);
        sorted.gather(self, self.grid.order(), &mut records);
        self.records = records;
        t.grid_ms += lap(&mut since);
        let personal_space = self.level.crowd.behaviour.personal_space;
        steering::steer(
            &self.grid,
            &mut sorted,
            &self.obstacles,
            inputs,
            personal_space,
            dt,
        );
        t.steering_ms = lap(&mut since);
        let constraints = constraints::ConstraintContext {
            grid: &self.grid,
            obstacles: &self.obstacles,
            bounds: self.level.bounds,
            hero: inputs.hero_position.filter(|h| h.is_finite()),
            fallback: &self.goal,
        };
        // Steering's positions wait in q until the pass swaps them in.
        let steered = &mut self.steered_scratch;
        steered.clear();
        if self.measure_corrections {
            steered.extend(
                sorted
                    .qx
                    .iter()
                    .zip(&sorted.qy)
                    .map(|(&x, &y)| Vec2::new(x, y)),
            );
        }
        t.sweeps = constraints.apply(&mut sorted) as u32;
        if self.measure_corrections {
            let c = &mut self.corrections;
            for (k, from) in self.steered_scratch.iter().enumerate() {
                let moved = (Vec2::new(sorted.px[k], sorted.py[k]) - *from).length();
                c.person_steps += 1;
                if moved > Corrections::MOVED {
                    c.corrected += 1;
                    c.total_m += f64::from(moved);
                    c.max_m = c.max_m.max(moved);
                }
            }
        }
        t.constraints_ms = lap(&mut since);
        sorted::write_back(
            &sorted,
            self.grid.slot_of(),
            &mut self.outcomes,
            &mut self.pos,
            &mut self.vel,
        );
        self.sorted = sorted;
        t.grid_ms += lap(&mut since);
        self.update_heading_and_anim();
        t.animation_ms = lap(&mut since);
        self.timings = t;
    }

    /// Sets an agent's goal; if an obstacle is in the way, a route search is queued and the
    /// agent heads straight for the goal until it is done.
    pub(crate) fn set_goal(&mut self, i: usize, goal: Vec2) {
        self.goal[i] = goal;
        self.route[i].clear();
        self.last_waypoint[i] = None;
        if !self.nav.clear_line(self.pos[i], goal) {
            self.route_requests.push_back(i as u32);
        }
    }

    /// Runs up to `ROUTES_PER_STEP` waiting route searches, side by side on the pool's threads
    /// (each search only reads the grid; results are stored in request order).
    fn plan_routes(&mut self) {
        let limit = ROUTES_PER_STEP.max(std::mem::take(&mut self.route_burst));
        let mut batch = Vec::with_capacity(limit);
        while batch.len() < limit {
            let Some(i) = self.route_requests.pop_front() else {
                break;
            };
            if (i as usize) < self.len() {
                batch.push(i as usize);
            }
        }
        if batch.is_empty() {
            return;
        }
        let threads = rayon::current_num_threads().clamp(1, ROUTES_PER_STEP);
        self.route_scratch
            .resize_with(threads, RouteScratch::default);
        let per = batch.len().div_ceil(threads);
        let (nav, pos, goal) = (&self.nav, &self.pos, &self.goal);
        let routes: Vec<Vec<Option<Vec<Vec2>>>> = self
            .route_scratch
            .par_iter_mut()
            .zip(batch.par_chunks(per))
            .map(|(scratch, agents)| {
                agents
                    .iter()
                    .map(|&i| nav.route(pos[i], goal[i], scratch))
                    .collect()
            })
            .collect();
        for (&i, route) in batch.iter().zip(routes.into_iter().flatten()) {
            if let Some(route) = route {
                self.route[i] = route;
            }
        }
    }

    /// Where the agent steers now: its next waypoint, or the goal.
    pub fn steering_target(&self, i: usize) -> Vec2 {
        self.route[i].first().copied().unwrap_or(self.goal[i])
    }

    fn poi(&self, i: u32) -> &PointOfInterest {
        &self.level.points_of_interest[i as usize]
    }

    /// Pairs of people standing closer than `min_dist` (m), centre to centre: the non-overlap
    /// guarantee's measure (two bodies touch at `2 * BODY_RADIUS`).
    pub fn close_pairs(&self, min_dist: f32) -> usize {
        let b = self.level.bounds;
        let mut grid = CellGrid::new(b.min, b.max, min_dist.max(0.5));
        grid.rebuild(&self.pos);
        let order = grid.order();
        let mut pairs = 0;
        for (i, &p) in self.pos.iter().enumerate() {
            if self.is_out(i) {
                // Everyone who left waits at the same place outside the simulation.
                continue;
            }
            grid.for_each_near(p, min_dist, |slot| {
                let j = order[slot] as usize;
                if j > i && !self.is_out(j) && p.distance_squared(self.pos[j]) < min_dist * min_dist
                {
                    pairs += 1;
                }
            });
        }
        pairs
    }

    /// A stable hash of the whole state, for determinism checks.
    pub fn state_hash(&self) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut mix = |v: u32| {
            h ^= v as u64;
            h = h.wrapping_mul(0x100_0000_01b3);
        };
        for i in 0..self.len() {
            mix(self.pos[i].x.to_bits());
            mix(self.pos[i].y.to_bits());
            mix(self.vel[i].x.to_bits());
            mix(self.vel[i].y.to_bits());
            mix(self.heading[i].to_bits());
            mix(self.state[i] as u32);
            mix(self.anim[i].time_a.to_bits());
        }
        h
    }
}

fn pick_variant(level: &Level, rng: &mut u64) -> (Variant, Vec3) {
    let groups = &level.crowd.variant_groups;
    let total: f32 = groups.iter().map(|g| g.weight.max(0.0)).sum();
    let mut pick = next_random(rng) * total;
    let mut gi = groups.len().saturating_sub(1);
    for (k, g) in groups.iter().enumerate() {
        pick -= g.weight.max(0.0);
        if pick <= 0.0 {
            gi = k;
            break;
        }
    }
    let Some(g) = groups.get(gi) else {
        return (Variant::default(), Vec3::splat(0.6));
    };
    let name = if g.models.is_empty() {
        None
    } else {
        g.models
            .get((next_random(rng) * g.models.len() as f32) as usize % g.models.len())
    };
    let model = name
        .and_then(|n| level.crowd.models.iter().position(|m| &m.name == n))
        .unwrap_or(0);
    let color = if g.tints.is_empty() {
        Vec3::splat(0.6)
    } else {
        g.tints[(next_random(rng) * g.tints.len() as f32) as usize % g.tints.len()]
    };
    let mut props = 0u16;
    for (k, p) in g.props.iter().enumerate().take(16) {
        if next_random(rng) < p.chance {
            props |= 1 << k;
        }
    }
    (
        Variant {
            group: gi as u16,
            model: model as u16,
            props,
        },
        color,
    )
}
