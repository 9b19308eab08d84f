//! Placed things (`placed:` in a level, the build toolbar's output) as the world sees them: each
//! kind's footprints (obstacles the crowd, the hero and the scenery use), the points of interest
//! it offers (a food stand's queue, a bench's seats) and the attraction it is (a performer's mat
//! and where the performer stands). The file keeps only `placed`; `world_level` appends what they
//! expand to after the file's own obstacles and points of interest, so every index a designer's
//! elements have in the file is the same in the world.

use glam::Vec2;

use super::schema::{
    box_to_world, Activity, Level, Obstacle, ObstacleKind, Placed, PointOfInterest, Shape,
    ThingKind,
};

impl ThingKind {
    pub const ALL: [ThingKind; 8] = [
        ThingKind::Performer,
        ThingKind::FoodStand,
        ThingKind::Bench,
        ThingKind::Fence,
        ThingKind::Bollard,
        ThingKind::Planter,
        ThingKind::InformationBoard,
        ThingKind::SmallStage,
    ];

    /// What the toolbar and messages call it.
    pub fn label(self) -> &'static str {
        match self {
            ThingKind::Performer => "street performer",
            ThingKind::FoodStand => "food stand",
            ThingKind::Bench => "bench",
            ThingKind::Fence => "fence",
            ThingKind::Bollard => "bollard",
            ThingKind::Planter => "planter",
            ThingKind::InformationBoard => "information board",
            ThingKind::SmallStage => "small stage",
        }
    }

    /// The name a level file uses (`kind: FoodStand`).
    pub fn key(self) -> &'static str {
        match self {
            ThingKind::Performer => "Performer",
            ThingKind::FoodStand => "FoodStand",
            ThingKind::Bench => "Bench",
            ThingKind::Fence => "Fence",
            ThingKind::Bollard => "Bollard",
            ThingKind::Planter => "Planter",
            ThingKind::InformationBoard => "InformationBoard",
            ThingKind::SmallStage => "SmallStage",
        }
    }

    /// The kind's pieces in its own frame (x across, y towards its front): obstacle kind,
    /// shape centred at the local point, height (0: the kind's usual).
    fn pieces(self) -> Vec<(ObstacleKind, Vec2, LocalShape)> {
        use LocalShape::{Circle, Rect};
        match self {
            ThingKind::Performer => vec![(ObstacleKind::Mat, Vec2::ZERO, Circle(PERFORMER_MAT))],
            ThingKind::SmallStage => vec![
                (ObstacleKind::Stage, Vec2::ZERO, Rect(STAGE_HALF)),
                (
                    ObstacleKind::Mat,
                    Vec2::new(0.0, STAGE_HALF.y + 0.5 + STAGE_MAT),
                    Circle(STAGE_MAT),
                ),
            ],
            ThingKind::FoodStand => vec![(ObstacleKind::Kiosk, Vec2::ZERO, Rect(STAND_HALF))],
            ThingKind::Bench => vec![(ObstacleKind::Bench, Vec2::ZERO, Rect(BENCH_HALF))],
            ThingKind::Fence => vec![(ObstacleKind::Fence, Vec2::ZERO, Rect(FENCE_HALF))],
            ThingKind::Bollard => vec![(ObstacleKind::Bollard, Vec2::ZERO, Circle(0.15))],
            ThingKind::Planter => {
                vec![(ObstacleKind::Planter, Vec2::ZERO, Rect(Vec2::splat(0.6)))]
            }
            ThingKind::InformationBoard => vec![(
                ObstacleKind::InformationBoard,
                Vec2::ZERO,
                Rect(Vec2::new(0.7, 0.1)),
            )],
        }
    }
}

/// A piece's shape in its thing's frame.
#[derive(Debug, Clone, Copy)]
enum LocalShape {
    Circle(f32),
    Rect(Vec2),
}

/// The street performer's mat (radius, m): the performance circle nobody else stands in.
pub const PERFORMER_MAT: f32 = 1.2;
/// The small stage's platform (half extents) and the mat in front of it (radius).
pub const STAGE_HALF: Vec2 = Vec2::new(2.5, 1.2);
pub const STAGE_MAT: f32 = 1.5;
const STAND_HALF: Vec2 = Vec2::new(1.0, 0.7);
const BENCH_HALF: Vec2 = Vec2::new(0.9, 0.3);
/// A fence segment: 3 m long, 10 cm thick.
pub const FENCE_HALF: Vec2 = Vec2::new(1.5, 0.05);
/// People a placed food stand's queue holds.
pub const STAND_QUEUE: u32 = 14;

/// Where a performance happens: the mat's centre and radius, where the performer stands (at the
/// back edge of the mat, outside it), and the way the show faces.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Attraction {
    pub centre: Vec2,
    pub radius: f32,
    pub performer_spot: Vec2,
    /// Unit vector from the performer over the mat to the audience.
    pub facing: Vec2,
    /// How far away people notice it (m).
    pub seen_from: f32,
    /// Its pull relative to a street performer's.
    pub pull: f32,
}

impl Placed {
    /// The thing's front as a unit vector in the plaza.
    pub fn facing(&self) -> Vec2 {
        box_to_world(self.heading_deg, Vec2::Y)
    }

    fn to_world(&self, local: Vec2) -> Vec2 {
        self.at + box_to_world(self.heading_deg, local)
    }

    /// The obstacles it puts on the ground, named after it.
    pub fn obstacles(&self) -> Vec<Obstacle> {
        self.kind
            .pieces()
            .into_iter()
            .enumerate()
            .map(|(k, (kind, local, shape))| {
                let center = self.to_world(local);
                let shape = match shape {
                    LocalShape::Circle(radius) => Shape::Circle { center, radius },
                    LocalShape::Rect(half_extents) => Shape::Box {
                        center,
                        half_extents,
                        angle_deg: self.heading_deg,
                    },
                };
                Obstacle {
                    name: format!("{}#{k}", self.name),
                    kind,
                    shape,
                    height: 0.0,
                }
            })
            .collect()
    }

    /// The points of interest it offers: a food stand's queue head, a bench's two seats.
    pub fn points_of_interest(&self) -> Vec<PointOfInterest> {
        let poi = |name: String, position, capacity, activity, weight| PointOfInterest {
            name,
            position,
            radius: 0.05,
            weight,
            capacity,
            activity,
        };
        match self.kind {
            ThingKind::FoodStand => vec![poi(
                format!("{} queue", self.name),
                self.to_world(Vec2::new(0.0, STAND_HALF.y + 0.7)),
                STAND_QUEUE,
                Activity::Queue,
                1.5,
            )],
            ThingKind::Bench => [-0.45, 0.45]
                .iter()
                .enumerate()
                .map(|(k, &x)| {
                    poi(
                        format!("{} seat {}", self.name, k + 1),
                        self.to_world(Vec2::new(x, BENCH_HALF.y + 0.25)),
                        1,
                        Activity::Sit,
                        0.4,
                    )
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The show it puts on, if it is a performer or a stage.
    pub fn attraction(&self) -> Option<Attraction> {
        let (mat_local, radius, seen_from, pull) = match self.kind {
            ThingKind::Performer => (Vec2::ZERO, PERFORMER_MAT, 20.0, 1.0),
            ThingKind::SmallStage => (
                Vec2::new(0.0, STAGE_HALF.y + 0.5 + STAGE_MAT),
                STAGE_MAT,
                32.0,
                1.6,
            ),
            _ => return None,
        };
        let facing = self.facing();
        let centre = self.to_world(mat_local);
        Some(Attraction {
            centre,
            radius,
            performer_spot: centre - facing * (radius + 0.3),
            facing,
            seen_from,
            pull,
        })
    }

    /// Every point its footprint reaches (bounds checks).
    pub fn extreme_points(&self) -> Vec<Vec2> {
        self.obstacles()
            .iter()
            .flat_map(|o| o.shape.extreme_points())
            .collect()
    }
}

/// Name of the level element an obstacle came from: a placed thing's obstacles are named
/// `thing#k`.
pub fn owner_name(obstacle: &Obstacle) -> String {
    match obstacle.name.rsplit_once('#') {
        Some((owner, k)) if k.chars().all(|c| c.is_ascii_digit()) => owner.to_string(),
        _ => obstacle.name.clone(),
    }
}

/// Sample spacing (m) of the overlap test: finer than the thinnest piece (a fence's 10 cm).
const OVERLAP_STEP: f32 = 0.05;

/// The first of `others` that `pieces` overlap (touching edges allowed), found by sampling each
/// piece's footprint every 5 cm against the others' exact signed distances.
pub fn first_overlap(pieces: &[Obstacle], others: &[Obstacle]) -> Option<Obstacle> {
    for piece in pieces {
        let r = piece.shape.bounding_radius();
        let c = piece.shape.center();
        let near: Vec<&Obstacle> = others
            .iter()
            .filter(|o| o.shape.center().distance(c) < r + o.shape.bounding_radius())
            .collect();
        if near.is_empty() {
            continue;
        }
        let n = (2.0 * r / OVERLAP_STEP).ceil() as i32;
        for y in 0..=n {
            for x in 0..=n {
                let p = c - Vec2::splat(r) + Vec2::new(x as f32, y as f32) * OVERLAP_STEP;
                if piece.shape.signed_distance(p).0 > 0.0 {
                    continue;
                }
                if let Some(o) = near.iter().find(|o| o.shape.signed_distance(p).0 < -0.01) {
                    return Some((*o).clone());
                }
            }
        }
    }
    None
}

/// The level as the world uses it: the file's obstacles and points of interest, then those of
/// every placed thing in `placed` order. Calling it on its own result changes nothing.
pub fn world_level(level: &Level) -> Level {
    let mut world = level.clone();
    if level.placed_expanded {
        return world;
    }
    for p in &level.placed {
        world.obstacles.extend(p.obstacles());
        world.points_of_interest.extend(p.points_of_interest());
    }
    world.placed_expanded = true;
    world
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placed(kind: ThingKind, at: Vec2, heading_deg: f32) -> Placed {
        Placed {
            name: "t".into(),
            kind,
            at,
            heading_deg,
        }
    }

    #[test]
    fn a_turned_fence_runs_along_its_turned_axis() {
        let f = placed(ThingKind::Fence, Vec2::new(5.0, 5.0), 90.0);
        let o = &f.obstacles()[0];
        // Turned a quarter counter-clockwise from above, the 3 m fence runs along z.
        assert!(crate::footprint::obstacle_contains(
            &o.shape,
            Vec2::new(5.0, 6.4)
        ));
        assert!(!crate::footprint::obstacle_contains(
            &o.shape,
            Vec2::new(6.4, 5.0)
        ));
    }

    #[test]
    fn a_performer_stands_behind_the_mat_facing_over_it() {
        let p = placed(ThingKind::Performer, Vec2::ZERO, 0.0);
        let a = p.attraction().expect("a performer is an attraction");
        assert_eq!(a.facing, Vec2::Y);
        let mat = &p.obstacles()[0];
        let (d, _) = mat.shape.signed_distance(a.performer_spot);
        assert!(d >= 0.2, "the performer's body is clear of the mat: {d}");
        assert!(a.performer_spot.y < 0.0);
    }

    #[test]
    fn the_world_level_appends_after_the_files_own_elements() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(root.join("levels/plaza.ron")).expect("plaza.ron");
        let mut level = crate::level::parse_level(&text, "plaza.ron", root).expect("it parses");
        let obstacles = level.obstacles.len();
        let pois = level.points_of_interest.len();
        level
            .placed
            .push(placed(ThingKind::FoodStand, Vec2::new(2.0, 2.0), 0.0));
        level
            .placed
            .push(placed(ThingKind::Bench, Vec2::new(-2.0, 2.0), 0.0));
        let world = world_level(&level);
        assert_eq!(world.obstacles.len(), obstacles + 2);
        assert_eq!(world.points_of_interest.len(), pois + 3);
        assert_eq!(world.obstacles[..obstacles], level.obstacles[..]);
        assert_eq!(
            world_level(&world),
            world,
            "expanding twice changes nothing"
        );
    }
}
