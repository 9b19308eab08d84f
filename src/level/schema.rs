//! The level file schema: what a designer writes in `levels/*.ron`.
//!
//! Coordinates: metres, +Y up. The plaza lies on the XZ plane; 2D points in the file are `(x, z)`.
//! Every struct rejects unknown fields so a typo is an error, not a silently ignored setting.

use glam::{Vec2, Vec3};
use serde::Deserialize;

pub use crate::footprint::{box_to_world, world_to_box, Shape};

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Level {
    /// Shown in the window title and the stats panel.
    pub name: String,
    pub bounds: Bounds,
    #[serde(default)]
    pub ground: Ground,
    #[serde(default)]
    pub obstacles: Vec<Obstacle>,
    #[serde(default)]
    pub points_of_interest: Vec<PointOfInterest>,
    #[serde(default)]
    pub paths: Vec<NamedPath>,
    pub spawn_zones: Vec<SpawnZone>,
    pub crowd: CrowdSettings,
    pub hero: HeroSettings,
    #[serde(default)]
    pub lod: LodSettings,
    #[serde(default)]
    pub lighting: Lighting,
    #[serde(default)]
    pub camera: CameraStart,
    /// Things the player placed with the build toolbar (or a designer wrote by hand): street
    /// performers, food stands, benches, fences, ... (`level::sandbox` turns each into its
    /// obstacles, points of interest and attraction).
    #[serde(default)]
    pub placed: Vec<Placed>,
    /// Ways out of the level for an evacuation: openings on the bounds (street ends, doors).
    #[serde(default)]
    pub exits: Vec<Exit>,
    /// Alarms raised at set times after the level starts (drills, scenarios).
    #[serde(default)]
    pub alarms: Vec<AlarmEvent>,
    /// Measurement areas: polygons whose density and speed are read live and recorded
    /// (the field's classic and Voronoi measures).
    #[serde(default)]
    pub measurement_areas: Vec<MeasurementArea>,
    /// Measurement lines: segments whose flow is counted in both directions.
    #[serde(default)]
    pub measurement_lines: Vec<MeasurementLine>,
    /// True in `sandbox::world_level`'s result, whose obstacles and points of interest already
    /// include the placed things'; never in a file.
    #[serde(skip)]
    pub placed_expanded: bool,
}

/// What the build toolbar places.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
pub enum ThingKind {
    /// A person playing on a mat: draws rings of watchers.
    Performer,
    /// A stall serving a queue in front of its counter.
    FoodStand,
    /// Seats two, facing its front.
    Bench,
    /// A 3 m fence segment.
    Fence,
    Bollard,
    Planter,
    InformationBoard,
    /// A low platform with a performer on its apron: a bigger draw than a street performer.
    SmallStage,
}

/// One placed thing: where it stands and which way its front faces (degrees counter-clockwise
/// seen from above; 0 faces +z).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Placed {
    pub name: String,
    pub kind: ThingKind,
    pub at: Vec2,
    #[serde(default)]
    pub heading_deg: f32,
}

/// A way out: people who reach it during an alarm have left the level.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Exit {
    pub name: String,
    pub area: ExitArea,
    /// People per second the exit is rated for; absent: 1.3 per metre of width (a door's
    /// usual specific flow). People weigh the queue at an exit by it when they choose one.
    #[serde(default)]
    pub capacity: Option<f32>,
    /// Closed at the start (a locked door); the game opens and closes exits while it runs.
    #[serde(default)]
    pub closed: bool,
}

/// Where an exit lies: a line across an opening (a doorway, a street end on the bounds), or a
/// box anyone entering has left.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub enum ExitArea {
    Line(Vec2, Vec2),
    Box { center: Vec2, half_extents: Vec2 },
}

impl ExitArea {
    /// The point people head for.
    pub fn center(&self) -> Vec2 {
        match *self {
            ExitArea::Line(a, b) => (a + b) * 0.5,
            ExitArea::Box { center, .. } => center,
        }
    }

    /// Width across which people pass (m): the line's length, or the box's wider side.
    pub fn width(&self) -> f32 {
        match *self {
            ExitArea::Line(a, b) => a.distance(b),
            ExitArea::Box { half_extents, .. } => 2.0 * half_extents.max_element(),
        }
    }

    /// Distance from `p` to the exit (0 inside a box).
    pub fn distance(&self, p: Vec2) -> f32 {
        match *self {
            ExitArea::Line(a, b) => {
                let ab = b - a;
                let t = ((p - a).dot(ab) / ab.length_squared().max(1e-9)).clamp(0.0, 1.0);
                p.distance(a + ab * t)
            }
            ExitArea::Box {
                center,
                half_extents,
            } => ((p - center).abs() - half_extents).max(Vec2::ZERO).length(),
        }
    }

    /// The exit's point nearest to `p`, kept 0.3 m in from a line's ends (door posts) and a
    /// box's sides where there is room: where someone at `p` heads in the last metres.
    pub fn nearest_point(&self, p: Vec2) -> Vec2 {
        const IN: f32 = 0.3;
        match *self {
            ExitArea::Line(a, b) => {
                let len = a.distance(b);
                let dir = (b - a) / len.max(1e-6);
                let margin = IN.min(len * 0.5);
                let t = (p - a).dot(dir).clamp(margin, len - margin);
                a + dir * t
            }
            ExitArea::Box {
                center,
                half_extents,
            } => {
                let inner = (half_extents - Vec2::splat(IN)).max(Vec2::ZERO);
                p.clamp(center - inner, center + inner)
            }
        }
    }

    /// Moved by `by` (the level editor's drag).
    pub fn moved(&self, by: Vec2) -> ExitArea {
        match *self {
            ExitArea::Line(a, b) => ExitArea::Line(a + by, b + by),
            ExitArea::Box {
                center,
                half_extents,
            } => ExitArea::Box {
                center: center + by,
                half_extents,
            },
        }
    }
}

impl Exit {
    /// Usual specific flow through a door (people per metre per second) for the default
    /// capacity.
    pub const SPECIFIC_FLOW: f32 = 1.3;

    /// People per second the exit is rated for.
    pub fn capacity(&self) -> f32 {
        self.capacity
            .filter(|c| c.is_finite() && *c > 0.0)
            .unwrap_or(Self::SPECIFIC_FLOW * self.area.width())
    }
}

/// An alarm the level raises by itself `at` seconds after it starts.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AlarmEvent {
    pub at: f32,
    pub position: Vec2,
    /// Seconds after which the all-clear sounds; absent: the alarm lasts until the player
    /// gives the all-clear.
    #[serde(default)]
    pub all_clear_after: Option<f32>,
}

/// A measurement area: a simple polygon of at least three `(x, z)` corners, in either winding.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeasurementArea {
    pub name: String,
    pub polygon: Vec<Vec2>,
}

/// A measurement line from `from` to `to`. Crossing it "forward" means moving towards
/// `(to - from)` turned 90 degrees counter-clockwise seen from above (+x right, +z up): a line
/// drawn towards +x counts people walking towards +z as forward. The F8 overlay's arrow shows it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeasurementLine {
    pub name: String,
    pub from: Vec2,
    pub to: Vec2,
}

impl MeasurementLine {
    /// The unit direction a forward crossing moves in.
    pub fn forward(&self) -> Vec2 {
        (self.to - self.from).perp().normalize_or_zero()
    }

    pub fn length(&self) -> f32 {
        self.from.distance(self.to)
    }
}

/// The walkable rectangle of the plaza (XZ). Agents never leave it.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bounds {
    pub min: Vec2,
    pub max: Vec2,
}

impl Bounds {
    pub fn contains(&self, p: Vec2) -> bool {
        p.x >= self.min.x && p.x <= self.max.x && p.y >= self.min.y && p.y <= self.max.y
    }
    pub fn size(&self) -> Vec2 {
        self.max - self.min
    }
    pub fn center(&self) -> Vec2 {
        (self.min + self.max) * 0.5
    }
}

/// The ground is a two-colour checker of paving tiles.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Ground {
    /// Edge length of one paving tile in metres.
    pub tile_size: f32,
    /// Linear RGB.
    pub color_a: Vec3,
    pub color_b: Vec3,
}

impl Default for Ground {
    fn default() -> Self {
        Ground {
            tile_size: 2.0,
            color_a: Vec3::new(0.40, 0.38, 0.35),
            color_b: Vec3::new(0.27, 0.26, 0.25),
        }
    }
}

/// What an obstacle is: decides its look and what agents may do there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
pub enum ObstacleKind {
    Fountain,
    Bench,
    Kiosk,
    Tree,
    LampPost,
    Building,
    Wall,
    /// A performer's mat: flat, but nobody stands on it.
    Mat,
    Fence,
    Bollard,
    Planter,
    InformationBoard,
    Stage,
}

impl ObstacleKind {
    pub const ALL: [ObstacleKind; 13] = [
        ObstacleKind::Fountain,
        ObstacleKind::Bench,
        ObstacleKind::Kiosk,
        ObstacleKind::Tree,
        ObstacleKind::LampPost,
        ObstacleKind::Building,
        ObstacleKind::Wall,
        ObstacleKind::Mat,
        ObstacleKind::Fence,
        ObstacleKind::Bollard,
        ObstacleKind::Planter,
        ObstacleKind::InformationBoard,
        ObstacleKind::Stage,
    ];
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Obstacle {
    pub name: String,
    pub kind: ObstacleKind,
    pub shape: Shape,
    /// Height in metres; 0 means the kind's usual height.
    #[serde(default)]
    pub height: f32,
}

/// What agents do when they reach a point of interest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
pub enum Activity {
    /// Stand, look around, talk with whoever else is there.
    Linger,
    /// Sit on the nearest bench.
    Sit,
    /// Stand facing the nearest fountain.
    WatchFountain,
    /// Queue in front of the nearest kiosk.
    Queue,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PointOfInterest {
    pub name: String,
    pub position: Vec2,
    /// Agents spread over a disc of this radius around `position`.
    #[serde(default = "default_poi_radius")]
    pub radius: f32,
    /// Relative chance of being chosen as a goal.
    pub weight: f32,
    /// How many agents may use it at once.
    pub capacity: u32,
    pub activity: Activity,
}

fn default_poi_radius() -> f32 {
    2.0
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NamedPath {
    pub name: String,
    pub points: Vec<Vec2>,
    /// The last point joins the first.
    #[serde(default, rename = "loop")]
    pub looped: bool,
}

/// A rectangle (XZ) where agents appear.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpawnZone {
    pub name: String,
    pub center: Vec2,
    pub half_extents: Vec2,
    /// Relative share of the crowd spawned here.
    #[serde(default = "one")]
    pub weight: f32,
    /// A path agents from this zone prefer to follow, by name.
    #[serde(default)]
    pub path: Option<String>,
}

fn one() -> f32 {
    1.0
}

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Range {
    pub min: f32,
    pub max: f32,
}

/// A character model the crowd is made of.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CrowdModel {
    pub name: String,
    /// glTF/GLB/VRM file, found next to the level file first, then in the project root (where
    /// `assets/` is); after loading, the path the loaders open (`paths::ResolvedPath`).
    pub path: String,
    /// How tall the figure stands, in metres (its bind pose is scaled to this).
    #[serde(default = "person_height")]
    pub height: f32,
    /// The model's clip for an activity, by activity: `{"walk": "Walking"}`. Activities:
    /// idle, walk, run, wave, sit, talk, look_around. Unnamed ones use a conventional clip
    /// name, else a gesture authored on the skeleton, else idle.
    #[serde(default)]
    pub clips: std::collections::BTreeMap<String, String>,
    /// Materials that take the per-person clothing tint (default: shirts, clothes, vests...).
    #[serde(default, deserialize_with = "listed")]
    pub tint_materials: Option<Vec<String>>,
    /// Materials painted with a per-person skin tone (default: `Skin` and `Face`; `[]` keeps
    /// the model's own colours, e.g. for animals). Only their skin-coloured parts take it:
    /// other colours in them (eyes, brows) are face details, drawn dark on every tone.
    #[serde(default, deserialize_with = "listed")]
    pub skin_materials: Option<Vec<String>>,
    /// Groups of alternative rigid meshes that hang from the model's bones, by node or mesh
    /// name (`""` = nothing): each person wears one option of every group, chosen from their
    /// index. Rigid meshes named nowhere are always worn.
    /// `[["Round_Shield", "Spike_Shield", ""], ["1H_Sword", "2H_Sword"]]`
    #[serde(default)]
    pub attachment_choices: Vec<Vec<String>>,
    /// Rigid meshes never worn, by node or mesh name.
    #[serde(default)]
    pub hidden_meshes: Vec<String>,
}

/// A list the designer wrote (even an empty one), as opposed to an absent field: no `Some(..)`
/// in the file.
fn listed<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    Vec::<String>::deserialize(d).map(Some)
}

fn person_height() -> f32 {
    1.75
}

/// Props attached rigidly to a bone of a crowd character.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
pub enum PropKind {
    Hat,
    Bag,
    Backpack,
    Balloon,
    Umbrella,
    Phone,
}

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PropChance {
    pub prop: PropKind,
    /// Probability 0..1 that an agent of the group carries it.
    pub chance: f32,
}

/// A family of looks: which models, which clothing tints, which props.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VariantGroup {
    pub name: String,
    /// Relative share of the crowd.
    #[serde(default = "one")]
    pub weight: f32,
    /// Names from `crowd.models`.
    pub models: Vec<String>,
    /// Clothing tints (linear RGB); skin is never tinted.
    #[serde(default)]
    pub tints: Vec<Vec3>,
    #[serde(default)]
    pub props: Vec<PropChance>,
}

/// Weights and durations of the agents' behaviours.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Behaviour {
    /// Relative chance of each plan when an agent picks its next goal.
    pub stroll_weight: f32,
    pub follow_path_weight: f32,
    pub linger_weight: f32,
    /// Seconds spent at a point of interest.
    pub linger_seconds: Range,
    pub sit_seconds: Range,
    pub watch_seconds: Range,
    /// Seconds in front of a kiosk's counter.
    pub queue_service_seconds: Range,
    /// Agents closer than this to the hero turn to look at it (metres).
    pub notice_hero_distance: f32,
    /// Personal space kept from other agents and the hero (metres).
    pub personal_space: f32,
    /// Radius of the scatter when the player triggers a disturbance (metres).
    pub disturbance_radius: f32,
    /// Seconds until a scattered crowd calms down.
    pub calm_down_seconds: f32,
    /// The share of passers-by who stop at a performer, against how many already watch.
    pub show_stop: StopCurve,
    /// Seconds a watcher stays before applauding and moving on.
    pub show_watch_seconds: Range,
    /// Seconds of applause before a watcher leaves.
    pub applaud_seconds: f32,
    /// How people hear, pass on and get over an alarm.
    pub alarm: AlarmBehaviour,
}

/// How an alarm spreads through a crowd and how people flee.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AlarmBehaviour {
    /// Everyone within this distance of the alarm in open space hears it (m); behind a
    /// building or wall, within `hearing_radius * behind_walls`.
    pub hearing_radius: f32,
    pub behind_walls: f32,
    /// Seconds between hearing the alarm and starting to move (pre-movement time).
    pub reaction_seconds: Range,
    /// Contagion: a calm person who sees someone fleeing within `sight_distance` (m) becomes
    /// alarmed at this rate per second per fleeing neighbour seen (capped at 3).
    pub contagion_rate: f32,
    pub sight_distance: f32,
    /// Fleeing people walk this much faster than their usual pace (capped at 2.5 m/s).
    pub speed_factor: f32,
    /// Seconds an exit's expected wait must beat the current choice's by before someone
    /// changes exit (re-checked about once a second).
    pub switch_margin_seconds: f32,
    /// After the all-clear: seconds until the alarmed calm down, and until those who left
    /// come back in (each drawn per person).
    pub calm_seconds: Range,
    pub return_seconds: Range,
}

impl Default for AlarmBehaviour {
    fn default() -> Self {
        AlarmBehaviour {
            hearing_radius: 40.0,
            behind_walls: 0.4,
            reaction_seconds: Range { min: 0.5, max: 3.0 },
            contagion_rate: 1.5,
            sight_distance: 6.0,
            speed_factor: 1.4,
            switch_margin_seconds: 8.0,
            calm_seconds: Range {
                min: 3.0,
                max: 12.0,
            },
            return_seconds: Range {
                min: 5.0,
                max: 60.0,
            },
        }
    }
}

/// The drawing power of a crowd (Milgram, Bickman & Berkowitz 1969: the share of passers-by who
/// stop grows with the crowd already looking): `none + (many - none) * n / (n + half_at)` for
/// `n` people already watching. The default gives 4 % with nobody watching and 40 % at 15, the
/// shares of passers-by who stopped beside stimulus crowds of 1 and 15 in that study.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StopCurve {
    pub none: f32,
    pub many: f32,
    pub half_at: f32,
}

impl Default for StopCurve {
    fn default() -> Self {
        StopCurve {
            none: 0.04,
            many: 0.5,
            half_at: 4.2,
        }
    }
}

impl StopCurve {
    /// The chance a passer-by stops with `watching` people already there.
    pub fn chance(&self, watching: u32) -> f32 {
        let n = watching as f32;
        (self.none + (self.many - self.none) * n / (n + self.half_at.max(1e-3))).clamp(0.0, 1.0)
    }
}

impl Default for Behaviour {
    fn default() -> Self {
        Behaviour {
            stroll_weight: 1.0,
            follow_path_weight: 0.6,
            linger_weight: 0.8,
            linger_seconds: Range {
                min: 4.0,
                max: 14.0,
            },
            sit_seconds: Range {
                min: 8.0,
                max: 25.0,
            },
            watch_seconds: Range {
                min: 5.0,
                max: 15.0,
            },
            queue_service_seconds: Range { min: 3.0, max: 6.0 },
            notice_hero_distance: 3.5,
            personal_space: 0.6,
            disturbance_radius: 12.0,
            calm_down_seconds: 6.0,
            show_stop: StopCurve::default(),
            show_watch_seconds: Range {
                min: 20.0,
                max: 60.0,
            },
            applaud_seconds: 3.0,
            alarm: AlarmBehaviour::default(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CrowdSettings {
    /// Number of agents at start; the performance panel changes it at run time.
    pub count: u32,
    pub models: Vec<CrowdModel>,
    pub variant_groups: Vec<VariantGroup>,
    /// Preferred walking speeds in m/s: uniform over `min..max`, or normal and clamped to it.
    pub walk_speed: WalkSpeed,
    pub seed: u64,
    #[serde(default)]
    pub behaviour: Behaviour,
    /// Who walks in company, and in groups of how many; absent: everyone walks alone.
    #[serde(default)]
    pub groups: Groups,
    /// How many times a simulated second the crowd steps: 60 (with the world) or 30 (half the
    /// cost; drawn between its last two steps, one step behind). The hero always steps at 60.
    #[serde(default = "default_tick_hz")]
    pub tick_hz: u32,
}

/// The crowd's step rates (`crowd.tick_hz`): the world's own, or every other world step.
pub const CROWD_TICK_RATES: [u32; 2] = [60, 30];

fn default_tick_hz() -> u32 {
    CROWD_TICK_RATES[0]
}

/// Preferred walking speeds: `(min: 1.0, max: 1.6)` draws uniformly from the range;
/// `(min: 0.6, max: 2.0, normal: (mean: 1.34, sd: 0.26))` draws from the normal distribution
/// and clamps to the range (Weidmann 1993 measured 1.34 ± 0.26 m/s on free walkways).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WalkSpeed {
    pub min: f32,
    pub max: f32,
    #[serde(default, deserialize_with = "given")]
    pub normal: Option<NormalSpeed>,
}

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NormalSpeed {
    pub mean: f32,
    /// Standard deviation.
    pub sd: f32,
}

/// A value the designer wrote, as opposed to an absent field: no `Some(..)` in the file.
fn given<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// Walking groups (Moussaïd et al. 2010: most people in a plaza walk with one to three others).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Groups {
    /// Share of people (0 to 1) who walk in a group rather than alone.
    pub share: f32,
    /// The mix of group sizes, by relative weight of groups.
    pub sizes: Vec<GroupSize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroupSize {
    /// People in the group, 2 to `MAX_GROUP_SIZE`.
    pub size: u32,
    pub weight: f32,
}

/// The largest walking group a level may ask for.
pub const MAX_GROUP_SIZE: u32 = 6;

impl Default for Groups {
    fn default() -> Self {
        Groups {
            share: 0.0,
            sizes: vec![
                GroupSize {
                    size: 2,
                    weight: 0.6,
                },
                GroupSize {
                    size: 3,
                    weight: 0.3,
                },
                GroupSize {
                    size: 4,
                    weight: 0.1,
                },
            ],
        }
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HeroSettings {
    /// VRM 0.x/1.0 or skinned glTF.
    pub model: String,
    pub spawn: Vec2,
    /// Facing at spawn, degrees about +Y.
    #[serde(default)]
    pub heading_deg: f32,
    #[serde(default = "default_hero_walk")]
    pub walk_speed: f32,
    #[serde(default = "default_hero_run")]
    pub run_speed: f32,
    /// Where idle, walk, run and wave come from (retargeted clips, a `.vrma`, or authored).
    #[serde(default)]
    pub motion: HeroMotion,
}

/// One of the hero's motions: a clip of another humanoid file retargeted onto the hero, a VRM
/// animation file (its first clip), or the clip authored in code. A file that is missing or
/// cannot be retargeted falls back to `Authored` with a warning naming the file and why.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub enum MotionSource {
    Authored,
    Clip { file: String, clip: String },
    Vrma(String),
}

/// Per-state motion sources of the hero. Missing fields take the defaults: the Quaternius
/// Casual_Female's Idle, Walk and Run and RobotExpressive's Wave.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HeroMotion {
    pub idle: MotionSource,
    pub walk: MotionSource,
    pub run: MotionSource,
    pub wave: MotionSource,
}

impl HeroMotion {
    /// Every motion authored in code (no files).
    pub fn authored() -> HeroMotion {
        HeroMotion {
            idle: MotionSource::Authored,
            walk: MotionSource::Authored,
            run: MotionSource::Authored,
            wave: MotionSource::Authored,
        }
    }

    /// The four sources, mutable, in the order idle, walk, run, wave (path resolution).
    pub fn sources_mut(&mut self) -> [&mut MotionSource; 4] {
        [
            &mut self.idle,
            &mut self.walk,
            &mut self.run,
            &mut self.wave,
        ]
    }
}

impl Default for HeroMotion {
    fn default() -> Self {
        let clip = |file: &str, clip: &str| MotionSource::Clip {
            file: file.to_string(),
            clip: clip.to_string(),
        };
        HeroMotion {
            idle: clip("assets/characters/Casual_Female.gltf", "Idle"),
            walk: clip("assets/characters/Casual_Female.gltf", "Walk"),
            run: clip("assets/characters/Casual_Female.gltf", "Run"),
            wave: clip("assets/characters/RobotExpressive.glb", "Wave"),
        }
    }
}

fn default_hero_walk() -> f32 {
    1.6
}
fn default_hero_run() -> f32 {
    4.5
}

/// Distances (metres from the camera) where the crowd switches mesh detail.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LodSettings {
    pub near: f32,
    pub mid: f32,
    /// Beyond this agents are not drawn.
    pub far: f32,
    /// From here to `far` people are drawn as impostors (pictures from an atlas baked at
    /// start), in place of the mid or far mesh; at or past `far` there are none. At least
    /// `near`. Older levels without it get none.
    pub impostor: f32,
    /// Band around each boundary where an agent keeps its previous level, so it does not flicker.
    pub hysteresis: f32,
    /// Width of the dithered cross-fade around each boundary, as a share of that boundary's
    /// distance (0.1 at 90 m: from 85.5 to 94.5 m); never narrower than `hysteresis`. 0 switches
    /// hard, with hysteresis only.
    pub fade: f32,
}

impl Default for LodSettings {
    fn default() -> Self {
        LodSettings {
            near: 18.0,
            mid: 45.0,
            far: 150.0,
            impostor: f32::INFINITY,
            hysteresis: 2.0,
            fade: 0.1,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Lighting {
    /// Direction the sunlight travels (pointing down into the ground).
    pub sun_direction: Vec3,
    /// Linear RGB, multiplied by `sun_intensity`.
    pub sun_color: Vec3,
    pub sun_intensity: f32,
    pub ambient: Vec3,
    pub sky_color: Vec3,
    pub shadows: bool,
    /// How linear light becomes screen colour.
    pub tone_mapping: ToneMapping,
}

/// The curve from linear light to display colour, for the whole frame and the sky.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
pub enum ToneMapping {
    /// Khronos PBR Neutral: colours below about 0.76 come out as authored (toon and stylised
    /// models look as painted), only highlights are compressed.
    #[default]
    Neutral,
    /// Narkowicz's ACES fit at 0.8 exposure: more contrast, but it greys whites and drains
    /// saturated colours (the look before Neutral became the default).
    Aces,
}

impl Default for Lighting {
    fn default() -> Self {
        Lighting {
            sun_direction: Vec3::new(-0.45, -1.0, -0.35),
            sun_color: Vec3::new(1.0, 0.95, 0.85),
            sun_intensity: 1.0,
            ambient: Vec3::new(0.22, 0.25, 0.32),
            sky_color: Vec3::new(0.55, 0.72, 0.92),
            shadows: true,
            tone_mapping: ToneMapping::Neutral,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum CameraMode {
    Orbit,
    Fly,
    Follow,
}

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CameraStart {
    pub mode: CameraMode,
    /// Point the orbit camera circles (x, y, z).
    pub target: Vec3,
    pub distance: f32,
    /// Degrees about +Y; 0 looks along -Z.
    pub yaw_deg: f32,
    /// Degrees above the horizon.
    pub pitch_deg: f32,
    /// Vertical field of view in degrees.
    pub fov_deg: f32,
}

impl Default for CameraStart {
    fn default() -> Self {
        CameraStart {
            mode: CameraMode::Orbit,
            target: Vec3::new(0.0, 1.0, 0.0),
            distance: 45.0,
            yaw_deg: 30.0,
            pitch_deg: 35.0,
            fov_deg: 50.0,
        }
    }
}
