use throng::validate::{bottleneck, counterflow, evacuation, fundamental, walkers, Effort};
fn main() {
    let effort = if std::env::args().any(|a| a == "quick") {
        Effort::Quick
    } else {
        Effort::Full
    };
    if std::env::args().any(|a| a == "cross") {
        use glam::Vec2;
        let level = throng::validate::arena::walled_level(
            Vec2::splat(-30.0),
            Vec2::splat(30.0),
            &[],
            (1.2, 1.4),
        );
        let mut agents = Vec::new();
        for k in 0..20 {
            let off = (k % 5) as f32 * 1.0 - 2.0;
            let row = (k / 5) as f32 * 1.2;
            agents.push((Vec2::new(-20.0 - row, off), Vec2::new(20.0 + row, off)));
            agents.push((Vec2::new(off, -20.0 - row), Vec2::new(off, 20.0 + row)));
        }
        let mut c = throng::crowd::Crowd::with_fixed_goals(&level, &agents, 2);
        let mut arrived = vec![None; c.len()];
        for step in 0..(90.0 * 60.0) as usize {
            c.step(1.0 / 60.0, &Default::default());
            for i in 0..c.len() {
                if arrived[i].is_none() && c.state[i] == throng::crowd::AgentState::Idle {
                    arrived[i] = Some(step as f32 / 60.0);
                }
            }
            if step % 600 == 0 {
                let late: Vec<String> = (0..c.len())
                    .filter(|&i| arrived[i].is_none())
                    .map(|i| {
                        format!(
                            "{i}:({:.1},{:.1})v{:.2}",
                            c.pos[i].x,
                            c.pos[i].y,
                            c.vel[i].length()
                        )
                    })
                    .collect();
                println!("t={} {}", step / 60, late.join(" "));
            }
        }
        println!("{:?}", arrived);
        return;
    }
    if std::env::args().any(|a| a == "ev") {
        println!(
            "walker {:.2} s (expected {:.2})",
            walkers::single_walker_seconds(),
            walkers::CORRIDOR / walkers::SPEED
        );
        let c = walkers::corner();
        println!(
            "corner deepest {:.3} arrived {}/{} in {:.1}s",
            c.deepest, c.arrived, c.people, c.seconds
        );
        for e in [4, 2] {
            let t = std::time::Instant::now();
            let o = evacuation::measure(e, effort, 1);
            println!(
                "evac {} exits: {:.1} s, inside {} ({:.1}s)",
                o.exits,
                o.seconds,
                o.inside,
                t.elapsed().as_secs_f32()
            );
        }
        return;
    }
    if std::env::args().any(|a| a == "cf") {
        let t = std::time::Instant::now();
        let o = counterflow::measure(effort, 1);
        for (t, v) in o.times.iter().zip(&o.order).step_by(5) {
            println!("t {t:.0} order {v:.3}");
        }
        println!(
            "settled {:.3} ({:.1}s)",
            o.settled(),
            t.elapsed().as_secs_f32()
        );
        return;
    }
    if std::env::args().any(|a| a == "bn") {
        for w in bottleneck::WIDTHS {
            let t = std::time::Instant::now();
            let o = bottleneck::measure(w, effort, 1);
            println!(
                "{o:?} specific {:.2} ({:.1}s)",
                o.specific_flow(),
                t.elapsed().as_secs_f32()
            );
        }
        return;
    }
    for d in fundamental::DENSITIES {
        let t = std::time::Instant::now();
        let p = fundamental::measure(d, effort, 1);
        println!(
            "nominal {d}: density {:.2} speed {:.3} weidmann {:.3} flow {:.3}  ({:.1}s)",
            p.density,
            p.speed,
            fundamental::weidmann_speed(p.density),
            p.flow(),
            t.elapsed().as_secs_f32()
        );
    }
}
#[allow(dead_code)]
fn unused() {}
