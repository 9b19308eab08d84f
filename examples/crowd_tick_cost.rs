//! What a crowd step costs at 60 and at 30 Hz, per step and per simulated second, on the
//! stress level (issue #30: `crowd.tick_hz`). Both rates in one run, so their ratio holds on a
//! busy machine: `cargo run --release --example crowd_tick_cost [PEOPLE]`.

use throng::crowd::{Crowd, StepInputs};
use throng::level::load_level;

fn main() -> Result<(), String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let level = load_level(&root.join("levels/stress.ron"), root).map_err(|e| e.to_string())?;
    let people = match std::env::args().nth(1) {
        Some(n) => n
            .parse::<usize>()
            .map_err(|_| format!("`{n}` is not a number of people"))?,
        None => 100_000,
    };
    let mut per_second = Vec::new();
    for hz in [60.0f32, 30.0] {
        let dt = 1.0 / hz;
        let mut crowd = Crowd::from_level(&level, people, 1);
        for _ in 0..10 {
            crowd.step(dt, &StepInputs::default());
        }
        let mut ms: Vec<f64> = (0..30)
            .map(|_| {
                let started = std::time::Instant::now();
                crowd.step(dt, &StepInputs::default());
                started.elapsed().as_secs_f64() * 1000.0
            })
            .collect();
        ms.sort_by(f64::total_cmp);
        let median = ms[ms.len() / 2];
        per_second.push(median * f64::from(hz));
        println!(
            "{people} people at {hz} Hz: median step {median:.2} ms, {:.0} ms per simulated second",
            median * f64::from(hz)
        );
    }
    println!(
        "30 Hz costs {:.2}x of 60 Hz per simulated second",
        per_second[1] / per_second[0]
    );
    Ok(())
}
