//! The heat map (F2) and the measurement areas (M) read the same crowd the same way: over the
//! plaza's `south_street_area`, whose 8 x 8 m square covers exactly 4 x 4 of the heat map's
//! 2 m cells, the cells' people per m² and mean speed are the area's classic density and mean
//! speed. With the crowd held still (one real moment of the plaza fed to both for 30 s, so
//! the heat map's 3 s average has settled) they agree to float rounding; with the crowd
//! walking, their averages over two minutes agree within what their different windows (an
//! exponential 3 s average, a 10 s box) leave.

use glam::Vec2;
use throng::crowd::grid::PARKED;
use throng::crowd::{Crowd, StepInputs};
use throng::level::{parse_level, Level};
use throng::measure::Meters;
use throng::view::heat_map::HeatMap;

fn plaza() -> Level {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("levels/plaza.ron")).expect("the plaza");
    parse_level(&text, "plaza.ron", root).expect("the plaza parses")
}

/// The heat map's cells under the area: (mean people per m², people-weighted mean speed).
fn heat_over(map: &HeatMap, lo: Vec2, hi: Vec2) -> (f32, f32) {
    let (cols, rows) = map.dims();
    let (mut density, mut cells, mut speed_weighted) = (0.0, 0, 0.0);
    for row in 0..rows {
        for col in 0..cols {
            let o = map.cell_origin(col, row);
            let centre = o + Vec2::splat(map.cell_size() * 0.5);
            if centre.cmpgt(lo).all() && centre.cmplt(hi).all() {
                let d = map.density(col, row);
                density += d;
                cells += 1;
                speed_weighted += d * map.mean_speed(col, row).unwrap_or(0.0);
            }
        }
    }
    assert_eq!(cells, 16, "the area covers 4 x 4 cells");
    let mean_speed = if density > 0.0 {
        speed_weighted / density
    } else {
        0.0
    };
    (density / cells as f32, mean_speed)
}

fn street(level: &Level) -> (Vec2, Vec2) {
    let area = &level.measurement_areas[0];
    assert_eq!(area.name, "south_street_area");
    let lo = area
        .polygon
        .iter()
        .fold(Vec2::splat(f32::MAX), |a, &p| a.min(p));
    let hi = area
        .polygon
        .iter()
        .fold(Vec2::splat(f32::MIN), |a, &p| a.max(p));
    assert_eq!(hi - lo, Vec2::splat(8.0));
    (lo, hi)
}

fn walking_crowd(level: &Level, seed: u64, seconds: f32) -> Crowd {
    let mut crowd = Crowd::from_level(level, 2000, seed);
    for _ in 0..(seconds * 60.0) as usize {
        crowd.step(1.0 / 60.0, &StepInputs::default());
    }
    crowd
}

#[test]
fn a_still_crowd_reads_the_same_in_the_heat_map_and_the_area() {
    let level = plaza();
    let (lo, hi) = street(&level);
    for seed in [1, 7] {
        let crowd = walking_crowd(&level, seed, 40.0);
        let (pos, vel) = (crowd.pos.clone(), crowd.vel.clone());
        let inside = pos
            .iter()
            .filter(|p| p.cmpgt(lo).all() && p.cmplt(hi).all())
            .count();
        assert!(
            inside >= 3,
            "seed {seed}: {inside} people in the street area"
        );
        let mut heat = HeatMap::new(&level.bounds);
        let mut meters = Meters::for_level(&level);
        for k in 0..300 {
            heat.sample(&pos, &vel, 0.1);
            meters.observe(k as f32 * 0.1, &pos, &vel, |i| pos[i] != PARKED);
        }
        let (heat_density, heat_speed) = heat_over(&heat, lo, hi);
        let area = meters.area_readings()[0].1;
        let exact = inside as f32 / 64.0;
        assert!(
            (area.classic_density - exact).abs() < 1e-5,
            "seed {seed}: the area reads {} for {inside} people in 64 m²",
            area.classic_density
        );
        // After 30 s (ten time constants) the average holds e^-10 of its start (zero).
        assert!(
            (heat_density - exact).abs() < 1e-3 * exact,
            "seed {seed}: heat map {heat_density} vs {exact} per m²"
        );
        assert!(
            (heat_speed - area.mean_speed).abs() < 1e-3 * area.mean_speed.max(0.1),
            "seed {seed}: heat map {heat_speed} m/s vs the area's {}",
            area.mean_speed
        );
    }
}

#[test]
fn a_walking_crowd_averages_the_same_in_the_heat_map_and_the_area() {
    let level = plaza();
    let (lo, hi) = street(&level);
    let mut crowd = walking_crowd(&level, 3, 30.0);
    let mut heat = HeatMap::new(&level.bounds);
    let mut meters = Meters::for_level(&level);
    let (mut heat_sum, mut area_sum, mut exact_sum, mut n) = (0.0, 0.0, 0.0, 0);
    let dt = 1.0 / 60.0;
    for step in 0..(150.0 / dt) as usize {
        crowd.step(dt, &StepInputs::default());
        let t = step as f32 * dt;
        heat.sample(&crowd.pos, &crowd.vel, dt);
        let pos = &crowd.pos;
        meters.observe(t, pos, &crowd.vel, |i| pos[i] != PARKED);
        // Both settled (30 s), then a reading each second for two minutes.
        if step % 60 == 0 && t >= 30.0 {
            heat_sum += heat_over(&heat, lo, hi).0;
            area_sum += meters.area_readings()[0].1.classic_density;
            exact_sum += pos
                .iter()
                .filter(|p| p.cmpgt(lo).all() && p.cmplt(hi).all())
                .count() as f32
                / 64.0;
            n += 1;
        }
    }
    let (heat_mean, area_mean, exact_mean) = (
        heat_sum / n as f32,
        area_sum / n as f32,
        exact_sum / n as f32,
    );
    assert!(
        exact_mean > 0.02,
        "people walk the south street: {exact_mean} per m²"
    );
    // Each is a moving average of the same count: over 120 s, their windows' ends (3 s and
    // 10 s of a street whose count changes by a few people) move the means by a few per cent.
    for (name, m) in [("heat map", heat_mean), ("area", area_mean)] {
        assert!(
            (m - exact_mean).abs() < 0.1 * exact_mean,
            "{name} {m} vs the instantaneous count's mean {exact_mean} per m²"
        );
    }
    eprintln!(
        "two minutes: heat map {heat_mean:.4}, area {area_mean:.4}, counted {exact_mean:.4} per m²"
    );
}
