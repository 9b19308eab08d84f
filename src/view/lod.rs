//! Level of detail by camera distance, with hysteresis so an agent standing on a boundary does
//! not flicker between two meshes.

use crate::level::LodSettings;

/// Coarser levels have larger values; `Beyond` is not drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Lod {
    #[default]
    Near = 0,
    Mid = 1,
    Far = 2,
    /// A camera-facing picture from the impostor atlas (one quad per person).
    Impostor = 3,
    Beyond = 4,
}

impl Lod {
    pub const DRAWN: [Lod; 4] = [Lod::Near, Lod::Mid, Lod::Far, Lod::Impostor];
    /// The levels drawn from meshes (the impostor is a picture).
    pub const MESHES: usize = 3;

    pub fn index(self) -> usize {
        self as usize
    }

    /// The next coarser level; after the coarsest drawn one, `Beyond` (which stays `Beyond`).
    pub fn coarser(self) -> Lod {
        Lod::DRAWN
            .get(self.index() + 1)
            .copied()
            .unwrap_or(Lod::Beyond)
    }
}

/// Where each drawn level ends, in metres: `ends[k]` is the boundary between `Lod::DRAWN[k]` and
/// the next coarser level. Past `impostor` every drawn person is an impostor, whichever mesh the
/// distance would pick (impostors may start inside the mid band), so a level can be empty: its
/// end equals the one before (Far when impostors start before `mid`, Impostor when `impostor`
/// is at or past `far`, which means none).
pub fn level_ends(s: &LodSettings) -> [f32; Lod::DRAWN.len()] {
    let impostor = s.impostor.max(s.near);
    [s.near, s.mid.min(impostor), s.far.min(impostor), s.far]
}

/// True when level `k` of `ends` covers some distance.
pub fn level_present(ends: &[f32; Lod::DRAWN.len()], k: usize) -> bool {
    let start = if k == 0 { 0.0 } else { ends[k - 1] };
    ends[k] > start
}

/// The level for `distance` with no memory of the last frame.
pub fn classify(distance: f32, s: &LodSettings) -> Lod {
    level_at(distance, &level_ends(s))
}

/// The level whose range in `ends` (see `level_ends`) holds `distance`.
pub fn level_at(distance: f32, ends: &[f32; Lod::DRAWN.len()]) -> Lod {
    Lod::DRAWN
        .into_iter()
        .zip(*ends)
        .find(|&(_, end)| distance < end)
        .map_or(Lod::Beyond, |(lod, _)| lod)
}

/// The level for an agent at `distance` that had `previous` last frame. It changes only once the
/// distance is more than half the hysteresis band past a boundary.
pub fn select_lod(distance: f32, previous: Lod, s: &LodSettings) -> Lod {
    if !distance.is_finite() {
        return Lod::Beyond;
    }
    let half = s.hysteresis.max(0.0) * 0.5;
    let finest_possible = classify(distance - half, s);
    let coarsest_possible = classify(distance + half, s);
    if finest_possible > previous {
        finest_possible
    } else if coarsest_possible < previous {
        coarsest_possible
    } else {
        previous
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> LodSettings {
        LodSettings {
            near: 10.0,
            mid: 30.0,
            far: 80.0,
            impostor: 60.0,
            hysteresis: 2.0,
            ..Default::default()
        }
    }

    #[test]
    fn far_from_boundaries_the_level_follows_distance() {
        let s = settings();
        for prev in [Lod::Near, Lod::Mid, Lod::Far, Lod::Impostor, Lod::Beyond] {
            assert_eq!(select_lod(5.0, prev, &s), Lod::Near);
            assert_eq!(select_lod(20.0, prev, &s), Lod::Mid);
            assert_eq!(select_lod(50.0, prev, &s), Lod::Far);
            assert_eq!(select_lod(70.0, prev, &s), Lod::Impostor);
            assert_eq!(select_lod(100.0, prev, &s), Lod::Beyond);
        }
    }

    #[test]
    fn an_impostor_distance_at_or_past_far_means_no_impostors() {
        let mut s = settings();
        for impostor in [80.0, 500.0, f32::INFINITY] {
            s.impostor = impostor;
            assert_eq!(select_lod(79.0, Lod::Far, &s), Lod::Far, "{impostor}");
            assert_eq!(select_lod(70.0, Lod::Impostor, &s), Lod::Far, "{impostor}");
            assert_eq!(select_lod(90.0, Lod::Far, &s), Lod::Beyond, "{impostor}");
        }
        // Impostors straight after mid: no far mesh at all.
        s.impostor = s.mid;
        assert_eq!(select_lod(35.0, Lod::Mid, &s), Lod::Impostor);
        // Impostors inside the mid band take over from the mid mesh there.
        s.impostor = 20.0;
        assert_eq!(select_lod(15.0, Lod::Near, &s), Lod::Mid);
        assert_eq!(select_lod(25.0, Lod::Mid, &s), Lod::Impostor);
        assert_eq!(select_lod(50.0, Lod::Far, &s), Lod::Impostor);
        assert_eq!(select_lod(5.0, Lod::Impostor, &s), Lod::Near);
    }

    #[test]
    fn inside_the_band_the_previous_level_is_kept() {
        let s = settings();
        for d in [9.01, 9.5, 10.0, 10.5, 10.99] {
            assert_eq!(select_lod(d, Lod::Near, &s), Lod::Near, "{d}");
            assert_eq!(select_lod(d, Lod::Mid, &s), Lod::Mid, "{d}");
        }
        assert_eq!(select_lod(11.01, Lod::Near, &s), Lod::Mid);
        assert_eq!(select_lod(8.99, Lod::Mid, &s), Lod::Near);
    }

    #[test]
    fn walking_back_and_forth_across_a_boundary_switches_only_twice() {
        let s = settings();
        let mut lod = Lod::Near;
        let mut switches = 0;
        // Oscillate +-0.8 m around the 10 m boundary while drifting outwards, then back.
        let path: Vec<f32> = (0..400)
            .map(|i| {
                let t = i as f32 / 400.0;
                let drift = if t < 0.5 {
                    8.0 + t * 8.0
                } else {
                    16.0 - t * 8.0
                };
                drift + 0.8 * (i as f32 * 0.9).sin()
            })
            .collect();
        for d in path {
            let next = select_lod(d, lod, &s);
            if next != lod {
                switches += 1;
                lod = next;
            }
        }
        assert_eq!(switches, 2);
    }

    #[test]
    fn each_level_ends_where_the_next_begins() {
        let s = settings();
        assert_eq!(level_ends(&s), [10.0, 30.0, 60.0, 80.0]);
        assert_eq!(Lod::Near.coarser(), Lod::Mid);
        assert_eq!(Lod::Mid.coarser(), Lod::Far);
        assert_eq!(Lod::Far.coarser(), Lod::Impostor);
        assert_eq!(Lod::Impostor.coarser(), Lod::Beyond);
        assert_eq!(Lod::Beyond.coarser(), Lod::Beyond);
        assert_eq!(classify(9.99, &s), Lod::Near);
        assert_eq!(classify(10.0, &s), Lod::Mid);
        assert_eq!(classify(80.0, &s), Lod::Beyond);
    }

    #[test]
    fn a_jump_across_several_levels_lands_on_the_right_one() {
        let s = settings();
        assert_eq!(select_lod(200.0, Lod::Near, &s), Lod::Beyond);
        assert_eq!(select_lod(1.0, Lod::Beyond, &s), Lod::Near);
        assert_eq!(select_lod(f32::NAN, Lod::Near, &s), Lod::Beyond);
    }
}
