//! Stand-in people: coloured markers placed in the spawn zones. They show the crowd's size and
//! spread until the crowd simulation drives real agents.

use glam::Vec2;

use crate::level::validate::obstacle_contains;
use crate::level::Level;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Markers {
    pub positions: Vec<Vec2>,
    pub headings: Vec<f32>,
    pub colors: Vec<glam::Vec3>,
}

impl Markers {
    pub fn spawn(level: &Level, count: usize, seed: u64) -> Self {
        let mut rng = fastrand::Rng::with_seed(seed);
        let zones = &level.spawn_zones;
        let total_weight: f32 = zones.iter().map(|z| z.weight.max(0.0)).sum();
        let tints: Vec<glam::Vec3> = level
            .crowd
            .variant_groups
            .iter()
            .flat_map(|g| g.tints.iter().copied())
            .collect();
        let mut m = Markers::default();
        if zones.is_empty() || total_weight <= 0.0 {
            return m;
        }
        for _ in 0..count {
            let mut pick = rng.f32() * total_weight;
            let zone = zones
                .iter()
                .find(|z| {
                    pick -= z.weight.max(0.0);
                    pick <= 0.0
                })
                .unwrap_or(&zones[zones.len() - 1]);
            // A few tries to land outside the furniture; zones are validated to have free room.
            let mut p = zone.center;
            for _ in 0..16 {
                let offset =
                    Vec2::new(rng.f32() * 2.0 - 1.0, rng.f32() * 2.0 - 1.0) * zone.half_extents;
                p = zone.center + offset;
                if !level
                    .obstacles
                    .iter()
                    .any(|o| obstacle_contains(&o.shape, p))
                {
                    break;
                }
            }
            m.positions.push(p);
            m.headings.push(rng.f32() * std::f32::consts::TAU);
            m.colors.push(if tints.is_empty() {
                glam::Vec3::new(rng.f32(), rng.f32(), rng.f32())
            } else {
                tints[rng.usize(..tints.len())]
            });
        }
        m
    }

    pub fn len(&self) -> usize {
        self.positions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }
}
