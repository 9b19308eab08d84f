//! The look of each obstacle kind: a level's obstacles turned into one static, lit mesh.

use glam::{Vec2, Vec3};

use super::mesh::ColoredMesh;
use crate::level::{Level, Obstacle, ObstacleKind, Shape};

/// Height used when the level leaves `height` at 0.
pub fn default_height(kind: ObstacleKind) -> f32 {
    match kind {
        ObstacleKind::Fountain => 0.7,
        ObstacleKind::Bench => 0.9,
        ObstacleKind::Kiosk => 3.0,
        ObstacleKind::Tree => 7.0,
        ObstacleKind::LampPost => 4.5,
        ObstacleKind::Building => 14.0,
        ObstacleKind::Wall => 2.0,
        ObstacleKind::Mat => 0.02,
        ObstacleKind::Fence => 1.1,
        ObstacleKind::Bollard => 0.9,
        ObstacleKind::Planter => 0.8,
        ObstacleKind::InformationBoard => 2.2,
        ObstacleKind::Stage => 0.5,
    }
}

pub fn effective_height(o: &Obstacle) -> f32 {
    if o.height > 0.0 {
        o.height
    } else {
        default_height(o.kind)
    }
}

/// A stable 0..1 value from a name, so each building or kiosk keeps its colour across reloads.
fn name_hash(name: &str) -> f32 {
    let mut h: u32 = 2166136261;
    for b in name.bytes() {
        h = (h ^ b as u32).wrapping_mul(16777619);
    }
    (h % 10_000) as f32 / 10_000.0
}

fn pick(palette: &[Vec3], name: &str) -> Vec3 {
    let i = (name_hash(name) * palette.len() as f32) as usize;
    palette[i.min(palette.len() - 1)]
}

const STONE: Vec3 = Vec3::new(0.62, 0.6, 0.56);
const DARK_STONE: Vec3 = Vec3::new(0.38, 0.37, 0.35);
const WATER: Vec3 = Vec3::new(0.12, 0.35, 0.55);
const WOOD: Vec3 = Vec3::new(0.42, 0.25, 0.12);
const IRON: Vec3 = Vec3::new(0.08, 0.09, 0.1);
const BARK: Vec3 = Vec3::new(0.3, 0.2, 0.12);
const LAMP_GLOW: Vec3 = Vec3::new(1.0, 0.9, 0.6);
const FACADES: [Vec3; 5] = [
    Vec3::new(0.75, 0.62, 0.48),
    Vec3::new(0.62, 0.36, 0.28),
    Vec3::new(0.82, 0.78, 0.66),
    Vec3::new(0.55, 0.6, 0.62),
    Vec3::new(0.7, 0.52, 0.36),
];
const AWNINGS: [Vec3; 4] = [
    Vec3::new(0.75, 0.12, 0.1),
    Vec3::new(0.1, 0.4, 0.7),
    Vec3::new(0.15, 0.55, 0.25),
    Vec3::new(0.85, 0.6, 0.1),
];
const LEAVES: [Vec3; 3] = [
    Vec3::new(0.16, 0.38, 0.12),
    Vec3::new(0.22, 0.45, 0.15),
    Vec3::new(0.12, 0.32, 0.14),
];

/// Footprint of a shape as an oriented rectangle. A circle becomes the square inscribed in it, so
/// boxy furniture never pokes out of the area agents keep clear of.
fn footprint(shape: &Shape) -> (Vec2, Vec2, f32) {
    match *shape {
        Shape::Circle { center, radius } => (
            center,
            Vec2::splat(radius * std::f32::consts::FRAC_1_SQRT_2),
            0.0,
        ),
        Shape::Box {
            center,
            half_extents,
            angle_deg,
        } => (center, half_extents, angle_deg.to_radians()),
    }
}

/// The largest disc inside a shape, round its centre: round things drawn on a box stay in it.
fn disc_radius(shape: &Shape) -> f32 {
    match *shape {
        Shape::Circle { radius, .. } => radius,
        Shape::Box { half_extents, .. } => half_extents.min_element(),
    }
}

pub fn add_obstacle(mesh: &mut ColoredMesh, o: &Obstacle) {
    let h = effective_height(o);
    match (o.kind, o.shape) {
        (ObstacleKind::Fountain, Shape::Circle { center, radius }) => {
            mesh.add_cylinder(center, 0.0, h, radius, radius, 40, STONE);
            mesh.add_cylinder(center, h, 0.02, radius * 0.9, radius * 0.9, 40, WATER);
            mesh.add_cylinder(center, 0.0, h + 1.6, radius * 0.12, radius * 0.1, 16, STONE);
            mesh.add_cylinder(
                center,
                h + 1.2,
                0.25,
                radius * 0.2,
                radius * 0.35,
                24,
                STONE,
            );
            mesh.add_sphere(
                Vec3::new(center.x, h + 1.9, center.y),
                Vec3::new(radius * 0.08, radius * 0.12, radius * 0.08),
                6,
                12,
                WATER * 1.6,
            );
        }
        (ObstacleKind::Tree, shape) => {
            let (center, half, _) = footprint(&shape);
            let trunk = half.min_element().clamp(0.15, 0.6);
            let crown = (h * 0.32).max(trunk * 3.0);
            mesh.add_cylinder(center, 0.0, h * 0.55, trunk, trunk * 0.7, 10, BARK);
            mesh.add_sphere(
                Vec3::new(center.x, h - crown * 0.9, center.y),
                Vec3::new(crown, crown * 0.95, crown),
                8,
                14,
                pick(&LEAVES, &o.name),
            );
        }
        (ObstacleKind::Mat, shape) => {
            let (center, r) = (shape.center(), disc_radius(&shape));
            mesh.add_cylinder(center, 0.0, h, r, r, 32, pick(&AWNINGS, &o.name) * 0.8);
            mesh.add_cylinder(
                center,
                h,
                0.005,
                r * 0.8,
                r * 0.8,
                32,
                Vec3::new(0.8, 0.7, 0.45),
            );
        }
        (ObstacleKind::Bollard, shape) => {
            let (center, r) = (shape.center(), disc_radius(&shape));
            mesh.add_cylinder(center, 0.0, h, r, r * 0.85, 10, IRON);
            mesh.add_cylinder(
                center,
                h * 0.8,
                0.06,
                r * 1.02,
                r * 1.02,
                10,
                LAMP_GLOW * 0.7,
            );
        }
        (ObstacleKind::LampPost, shape) => {
            let (center, _, _) = footprint(&shape);
            mesh.add_cylinder(center, 0.0, 0.4, 0.18, 0.12, 8, IRON);
            mesh.add_cylinder(center, 0.0, h, 0.07, 0.06, 8, IRON);
            mesh.add_sphere(
                Vec3::new(center.x, h + 0.15, center.y),
                Vec3::splat(0.28),
                6,
                10,
                LAMP_GLOW,
            );
        }
        (kind, shape) => {
            let (center, half, yaw) = footprint(&shape);
            match kind {
                ObstacleKind::Bench => add_bench(mesh, center, half, yaw, h),
                ObstacleKind::Kiosk => add_kiosk(mesh, &o.name, center, half, yaw, h),
                ObstacleKind::Building => add_building(mesh, &o.name, center, half, yaw, h),
                ObstacleKind::Fence => add_fence(mesh, center, half, yaw, h),
                ObstacleKind::Planter => {
                    mesh.add_box(center, half, yaw, 0.0, h, DARK_STONE);
                    mesh.add_box(center, half * 0.85, yaw, h, 0.12, BARK);
                    mesh.add_sphere(
                        Vec3::new(center.x, h + 0.35, center.y),
                        Vec3::new(half.x * 0.8, 0.45, half.y * 0.8),
                        6,
                        10,
                        pick(&LEAVES, &o.name),
                    );
                }
                ObstacleKind::InformationBoard => {
                    for sx in [-1.0, 1.0] {
                        let post = local(center, yaw, Vec2::new(sx * (half.x - 0.05), 0.0));
                        mesh.add_box(post, Vec2::splat(0.04), yaw, 0.0, h, IRON);
                    }
                    mesh.add_box(
                        center,
                        Vec2::new(half.x, 0.04),
                        yaw,
                        h * 0.45,
                        h * 0.5,
                        Vec3::new(0.1, 0.3, 0.55),
                    );
                    let face = local(center, yaw, Vec2::new(0.0, 0.05));
                    mesh.add_box(
                        face,
                        Vec2::new(half.x * 0.85, 0.005),
                        yaw,
                        h * 0.5,
                        h * 0.4,
                        Vec3::new(0.9, 0.88, 0.8),
                    );
                }
                ObstacleKind::Stage => {
                    mesh.add_box(center, half, yaw, 0.0, h, WOOD);
                    mesh.add_box(center, half * 0.97, yaw, h, 0.02, WOOD * 1.4);
                    let back = local(center, yaw, Vec2::new(0.0, -half.y + 0.05));
                    mesh.add_box(
                        back,
                        Vec2::new(half.x, 0.05),
                        yaw,
                        h,
                        2.2,
                        pick(&AWNINGS, &o.name),
                    );
                }
                ObstacleKind::Fountain => {
                    // A square basin.
                    mesh.add_box(center, half, yaw, 0.0, h, STONE);
                    mesh.add_box(center, half * 0.9, yaw, h, 0.02, WATER);
                }
                _ => mesh.add_box(center, half, yaw, 0.0, h, DARK_STONE),
            }
        }
    }
}

/// Rotate a local offset (along the footprint's own axes) into the plaza.
fn local(center: Vec2, yaw: f32, offset: Vec2) -> Vec2 {
    // Matches Quat::from_rotation_y(yaw) acting on (x, 0, z).
    let (s, c) = yaw.sin_cos();
    center + Vec2::new(c * offset.x + s * offset.y, -s * offset.x + c * offset.y)
}

fn add_bench(mesh: &mut ColoredMesh, center: Vec2, half: Vec2, yaw: f32, h: f32) {
    let seat_y = h * 0.5;
    mesh.add_box(center, half, yaw, seat_y - 0.06, 0.06, WOOD);
    // Backrest along the local -z edge: people sit facing +z.
    let back = local(center, yaw, Vec2::new(0.0, -half.y + 0.04));
    mesh.add_box(
        back,
        Vec2::new(half.x, 0.04),
        yaw,
        seat_y + 0.05,
        h - seat_y - 0.05,
        WOOD,
    );
    for sx in [-1.0, 1.0] {
        let leg = local(center, yaw, Vec2::new(sx * (half.x - 0.1), 0.0));
        mesh.add_box(
            leg,
            Vec2::new(0.04, half.y * 0.9),
            yaw,
            0.0,
            seat_y - 0.06,
            IRON,
        );
    }
}

fn add_fence(mesh: &mut ColoredMesh, center: Vec2, half: Vec2, yaw: f32, h: f32) {
    let posts = (half.x * 2.0 / 1.0).ceil().max(1.0) as u32;
    for k in 0..=posts {
        let x = -half.x + 2.0 * half.x * k as f32 / posts as f32;
        let post = local(center, yaw, Vec2::new(x, 0.0));
        mesh.add_box(post, Vec2::new(0.04, 0.04), yaw, 0.0, h, IRON);
    }
    for y in [0.35, 0.95] {
        mesh.add_box(
            center,
            Vec2::new(half.x, half.y * 0.6),
            yaw,
            h * y - 0.04,
            0.08,
            Vec3::new(0.75, 0.2, 0.12),
        );
    }
}

fn add_kiosk(mesh: &mut ColoredMesh, name: &str, center: Vec2, half: Vec2, yaw: f32, h: f32) {
    let awning = pick(&AWNINGS, name);
    mesh.add_box(
        center,
        half * 0.92,
        yaw,
        0.0,
        h * 0.75,
        Vec3::new(0.85, 0.82, 0.74),
    );
    // Counter on the +z (front) side where the queue forms.
    let counter = local(center, yaw, Vec2::new(0.0, half.y * 0.92));
    mesh.add_box(counter, Vec2::new(half.x * 0.8, 0.12), yaw, 0.0, 1.05, WOOD);
    mesh.add_box(center, half * 1.12, yaw, h * 0.75, h * 0.08, awning);
    mesh.add_box(center, half * 0.7, yaw, h * 0.83, h * 0.17, awning * 0.8);
}

fn add_building(mesh: &mut ColoredMesh, name: &str, center: Vec2, half: Vec2, yaw: f32, h: f32) {
    let facade = pick(&FACADES, name);
    mesh.add_box(center, half, yaw, 0.0, h, facade);
    mesh.add_box(center, half + Vec2::splat(0.25), yaw, h, 0.5, facade * 0.7);
    // Rows of dark windows on the long faces give the facade scale and a readable rhythm.
    let window = Vec3::new(0.12, 0.16, 0.22);
    let floors = ((h - 1.5) / 3.2).floor().max(0.0) as u32;
    for (axis_len, across, along_x) in [(half.x, half.y, true), (half.y, half.x, false)] {
        let count = ((axis_len * 2.0 - 2.0) / 3.0).floor().max(0.0) as u32;
        for side in [-1.0f32, 1.0] {
            for f in 0..floors {
                for w in 0..count {
                    let t = (w as f32 + 0.5) / count as f32 * 2.0 - 1.0;
                    let along = t * (axis_len - 1.0);
                    let offset = if along_x {
                        Vec2::new(along, side * (across + 0.03))
                    } else {
                        Vec2::new(side * (across + 0.03), along)
                    };
                    let p = local(center, yaw, offset);
                    let size = if along_x {
                        Vec2::new(0.6, 0.05)
                    } else {
                        Vec2::new(0.05, 0.6)
                    };
                    mesh.add_box(p, size, yaw, 2.0 + f as f32 * 3.2, 1.5, window);
                }
            }
        }
    }
}

/// Everything static in a level (not the ground, which the renderer patterns itself).
pub fn build_static_mesh(level: &Level) -> ColoredMesh {
    let mut mesh = ColoredMesh::default();
    for o in &crate::level::sandbox::world_level(level).obstacles {
        add_obstacle(&mut mesh, o);
    }
    mesh
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obstacle(kind: ObstacleKind, shape: Shape) -> Obstacle {
        Obstacle {
            name: format!("{kind:?}"),
            kind,
            shape,
            height: 0.0,
        }
    }

    #[test]
    fn every_kind_and_shape_produces_geometry_within_its_footprint_and_height() {
        let shapes = [
            Shape::Circle {
                center: Vec2::new(5.0, -3.0),
                radius: 2.0,
            },
            Shape::Box {
                center: Vec2::new(-4.0, 6.0),
                half_extents: Vec2::new(3.0, 1.0),
                angle_deg: 30.0,
            },
        ];
        for kind in ObstacleKind::ALL {
            for shape in shapes {
                let mut m = ColoredMesh::default();
                let o = obstacle(kind, shape);
                add_obstacle(&mut m, &o);
                assert!(m.triangle_count() > 0, "{kind:?}");
                assert!(m.positions.iter().all(|p| p.is_finite()));
                let max_y = m.positions.iter().map(|p| p.y).fold(0.0, f32::max);
                // Fountain jets and lamp globes rise above the footprint height a little.
                assert!(max_y <= default_height(kind) + 3.0, "{kind:?} {max_y}");
                assert!(m.positions.iter().all(|p| p.y >= -1e-4));
                // Trees spread their crowns wider than the trunk; everything else keeps near its footprint.
                let reach = match kind {
                    ObstacleKind::Tree => 3.0 * shape.bounding_radius() + 3.0,
                    _ => shape.bounding_radius() * 1.2 + 0.5,
                };
                for p in &m.positions {
                    let d = Vec2::new(p.x, p.z).distance(shape.center());
                    assert!(d <= reach, "{kind:?} vertex {p} is {d} m from the centre");
                }
            }
        }
    }

    #[test]
    fn local_offsets_match_the_box_rotation() {
        let mut m = ColoredMesh::default();
        m.add_box(Vec2::ZERO, Vec2::new(2.0, 0.5), 0.9, 0.0, 1.0, Vec3::ONE);
        let corner = local(Vec2::ZERO, 0.9, Vec2::new(2.0, 0.5));
        assert!(m
            .positions
            .iter()
            .any(|p| Vec2::new(p.x, p.z).distance(corner) < 1e-4));
    }
}
