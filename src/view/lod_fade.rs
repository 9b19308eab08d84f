//! Level-of-detail changes without popping: a dithered (screen-door) cross-fade. Around each
//! boundary lies a band in which a person is drawn at both neighbouring levels: the finer one
//! on a share of the cells of a 4x4 ordered-dither pattern that shrinks across the band, the
//! coarser one on exactly the other cells, so together they cover each pixel once. Past the far
//! boundary the coarser level is `Beyond`: the person dissolves instead of vanishing.
//!
//! The share is a function of distance only (from the eye to where the person stands): the CPU
//! lists a person at both levels with `LodFade::pick`, and each level's shader recomputes the
//! same shares from `LodFade::shader_bands` and discards the pixels that belong to the other
//! level (`render/shaders/lod_fade.glsl`). Without a band (`fade` 0) the hysteresis of
//! `select_lod` decides, as a hard switch.

use super::lod::{level_at, level_ends, level_present, select_lod, Lod};
use crate::level::LodSettings;

/// Levels of detail that are drawn.
pub const DRAWN_LEVELS: usize = Lod::DRAWN.len();

/// The distances over which one boundary's cross-fade runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FadeBand {
    pub start: f32,
    pub end: f32,
}

impl FadeBand {
    /// The coarser level's share at `distance`: 0 up to the band, rising linearly through it,
    /// 1 after it.
    pub fn coarser_share(&self, distance: f32) -> f32 {
        ((distance - self.start) / (self.end - self.start)).clamp(0.0, 1.0)
    }

    fn contains(&self, distance: f32) -> bool {
        distance > self.start && distance < self.end
    }
}

/// A person's levels this frame: `finer` on `1 - share` of the pixels, `coarser` on `share`.
/// Outside the bands both are the same level and `share` is 0.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LodBlend {
    pub finer: Lod,
    pub coarser: Lod,
    pub share: f32,
}

impl LodBlend {
    pub fn solid(lod: Lod) -> LodBlend {
        LodBlend {
            finer: lod,
            coarser: lod,
            share: 0.0,
        }
    }

    /// The levels to draw with their coverage (share of pixels), finer first; `Beyond` and
    /// empty shares are left out, so a blend lists zero, one or two levels.
    pub fn drawn(&self) -> impl Iterator<Item = (Lod, f32)> {
        let both = [(self.finer, 1.0 - self.share), (self.coarser, self.share)];
        let solid = self.finer == self.coarser;
        both.into_iter()
            .take(if solid { 1 } else { 2 })
            .map(move |(lod, c)| (lod, if solid { 1.0 } else { c }))
            .filter(|&(lod, c)| lod != Lod::Beyond && c > 0.0)
    }

    /// The level covering most of the person (the finer one at an even split).
    pub fn main(&self) -> Lod {
        if self.share > 0.5 {
            self.coarser
        } else {
            self.finer
        }
    }
}

/// The cross-fade of one frame's LOD distances: the bands, and picking a person's levels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LodFade {
    settings: LodSettings,
    /// `level_ends(settings)`, kept: `pick` runs per person.
    ends: [f32; DRAWN_LEVELS],
    /// The band around `level_ends(settings)[k]`, None where there is none.
    bands: [Option<FadeBand>; DRAWN_LEVELS],
}

impl LodFade {
    pub fn new(settings: &LodSettings) -> LodFade {
        LodFade {
            settings: *settings,
            ends: level_ends(settings),
            bands: fade_bands(settings),
        }
    }

    /// True when some boundary has a band (else this is today's hard switch).
    pub fn fading(&self) -> bool {
        self.bands.iter().any(Option::is_some)
    }

    pub fn bands(&self) -> &[Option<FadeBand>; DRAWN_LEVELS] {
        &self.bands
    }

    /// A person's levels at `distance` (metres from the eye to where they stand), given the
    /// level it had last frame. With bands the answer depends on the distance alone (the shader
    /// recomputes it); without, hysteresis keeps the previous level near a boundary.
    pub fn pick(&self, distance: f32, previous: Lod) -> LodBlend {
        if !distance.is_finite() {
            return LodBlend::solid(Lod::Beyond);
        }
        if !self.fading() {
            return LodBlend::solid(select_lod(distance, previous, &self.settings));
        }
        for (k, band) in self.bands.iter().enumerate() {
            if let Some(b) = band.filter(|b| b.contains(distance)) {
                return LodBlend {
                    finer: Lod::DRAWN[k],
                    coarser: next_present(&self.ends, k),
                    share: b.coarser_share(distance),
                };
            }
        }
        // Every band holds its boundary's hysteresis band, so outside them hysteresis would
        // choose this level too.
        LodBlend::solid(level_at(distance, &self.ends))
    }

    /// Per drawn level, what its shader needs to find its coverage: the band it fades in over
    /// (start, end) and the band it fades out over (start, end); a band of zero width is none.
    pub fn shader_bands(&self) -> [[f32; 4]; DRAWN_LEVELS] {
        let span = |b: Option<FadeBand>| b.map_or([0.0, 0.0], |b| [b.start, b.end]);
        std::array::from_fn(|k| {
            let before = (0..k).rev().find(|&i| level_present(&self.ends, i));
            let fade_in = span(before.and_then(|i| self.bands[i]));
            let fade_out = span(self.bands[k]);
            [fade_in[0], fade_in[1], fade_out[0], fade_out[1]]
        })
    }
}

/// The band around each boundary: `fade` × the boundary's distance wide, at least the
/// hysteresis band, and at most half the way to a neighbouring boundary (so bands never meet
/// and a person is never drawn at three levels). None when `fade` is 0.
pub fn fade_bands(s: &LodSettings) -> [Option<FadeBand>; DRAWN_LEVELS] {
    let ends = level_ends(s);
    std::array::from_fn(|k| {
        if s.fade.is_nan() || s.fade <= 0.0 {
            return None;
        }
        if !level_present(&ends, k) {
            return None;
        }
        let end = ends[k];
        let below = end - if k == 0 { 0.0 } else { ends[k - 1] };
        let above = match next_present(&ends, k) {
            Lod::Beyond => f32::INFINITY,
            next => ends[next.index()] - end,
        };
        let half = (s.fade * end * 0.5)
            .max(s.hysteresis * 0.5)
            .min(below * 0.5)
            .min(above * 0.5);
        (half > 0.0 && half.is_finite() && end.is_finite()).then_some(FadeBand {
            start: end - half,
            end: end + half,
        })
    })
}

/// The first level after `k` that covers some distance (empty levels are skipped), else `Beyond`.
fn next_present(ends: &[f32; DRAWN_LEVELS], k: usize) -> Lod {
    (k + 1..DRAWN_LEVELS)
        .find(|&i| level_present(ends, i))
        .map_or(Lod::Beyond, |i| Lod::DRAWN[i])
}

/// What the crowd shaders need to recompute the coverages: the eye the distances were measured
/// from, `LodFade::shader_bands` and the near-lens band. All zero (the default) draws every
/// level unfaded.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ShaderFade {
    pub eye: [f32; 3],
    pub bands: [[f32; 4]; DRAWN_LEVELS],
    /// [`NEAR_LENS`] behind the follow camera (set by the extraction); zero: no near fade.
    pub near: [f32; 2],
}

/// People whose body comes nearer the lens than the first distance (metres, from the eye to
/// the nearest point of the upright segment they stand on, [`BODY_AXIS`] tall) are not drawn;
/// past the second they are whole; between, they keep a share of the dither cells. A follow
/// camera in a dense crowd then looks past the shoulder beside it instead of into it, as games
/// fade what comes between the camera and the player. Only the follow camera fades (an orbit
/// camera brought close to someone is there to see them); shadows keep every body.
pub const NEAR_LENS: [f32; 2] = [1.4, 2.8];
/// The height of the segment the near-lens distance is measured to (feet to the top of a head).
pub const BODY_AXIS: f32 = 1.7;

impl ShaderFade {
    pub fn new(fade: Option<&LodFade>, eye: glam::Vec3) -> ShaderFade {
        ShaderFade {
            eye: eye.to_array(),
            bands: fade.map_or([[0.0; 4]; DRAWN_LEVELS], LodFade::shader_bands),
            near: [0.0; 2],
        }
    }
}

/// A person's coverage near the lens, standing at `origin` seen from `eye`, with the near band
/// `near` (the reference for `lod_fade.glsl`): 1 when drawn whole, 0 when hidden.
pub fn near_lens_coverage(near: [f32; 2], eye: glam::Vec3, origin: glam::Vec3) -> f32 {
    if near[1] <= near[0] {
        return 1.0;
    }
    let up = (eye.y - origin.y).clamp(0.0, BODY_AXIS);
    let d = eye.distance(origin + glam::Vec3::Y * up);
    ((d - near[0]) / (near[1] - near[0])).clamp(0.0, 1.0)
}

/// A person's coverage at level `lod` as the shader computes it from `shader_bands` (the
/// reference for `lod_fade.glsl`).
pub fn shader_coverage(bands: &[f32; 4], distance: f32) -> f32 {
    let ramp = |start: f32, end: f32, none: f32| {
        if end > start {
            ((distance - start) / (end - start)).clamp(0.0, 1.0)
        } else {
            none
        }
    };
    ramp(bands[0], bands[1], 1.0) * (1.0 - ramp(bands[2], bands[3], 0.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_lens_hides_a_body_beside_the_lens_and_keeps_one_a_step_away() {
        let eye = glam::Vec3::new(0.0, 2.0, 0.0);
        // Shoulder-high beside the lens: the axis passes 0.5 m from the eye.
        let beside = near_lens_coverage(NEAR_LENS, eye, glam::Vec3::new(0.5, 0.0, 0.0));
        assert_eq!(beside, 0.0);
        // Half way through the band at eye height (the axis's top is level with the eye).
        let mid = 0.5 * (NEAR_LENS[0] + NEAR_LENS[1]);
        let half = near_lens_coverage(NEAR_LENS, eye, glam::Vec3::new(mid, 0.3, 0.0));
        assert!((half - 0.5).abs() < 1e-6, "{half}");
        // Past the band, and anyone on the ground far below a high camera, is whole.
        let past = glam::Vec3::new(NEAR_LENS[1] + 0.1, 0.0, 0.0);
        assert_eq!(near_lens_coverage(NEAR_LENS, eye, past), 1.0);
        let high = glam::Vec3::new(0.0, 4.8, 0.0);
        assert_eq!(near_lens_coverage(NEAR_LENS, high, glam::Vec3::ZERO), 1.0);
        // A zero band (the shadow pass) fades nobody.
        assert_eq!(
            near_lens_coverage([0.0, 0.0], eye, glam::Vec3::new(0.1, 0.0, 0.0)),
            1.0
        );
    }

    fn settings() -> LodSettings {
        LodSettings {
            near: 20.0,
            mid: 60.0,
            far: 200.0,
            hysteresis: 2.0,
            fade: 0.1,
            ..LodSettings::default()
        }
    }

    fn coverage_of(blend: &LodBlend, lod: Lod) -> f32 {
        blend
            .drawn()
            .filter(|&(l, _)| l == lod)
            .map(|(_, c)| c)
            .sum()
    }

    /// Distances from 0 to past the far band in 1 cm steps.
    fn sweep() -> impl Iterator<Item = f32> {
        (0..25_000).map(|i| i as f32 * 0.01)
    }

    #[test]
    fn bands_are_a_share_of_each_boundary_and_never_narrower_than_hysteresis() {
        let b = fade_bands(&settings());
        assert_eq!(
            b[0],
            Some(FadeBand {
                start: 19.0,
                end: 21.0
            })
        );
        assert_eq!(
            b[1],
            Some(FadeBand {
                start: 57.0,
                end: 63.0
            })
        );
        assert_eq!(
            b[2],
            Some(FadeBand {
                start: 190.0,
                end: 210.0
            })
        );
        let narrow = LodSettings {
            fade: 0.01,
            hysteresis: 3.0,
            ..settings()
        };
        assert_eq!(
            fade_bands(&narrow)[0],
            Some(FadeBand {
                start: 18.5,
                end: 21.5
            }),
            "the hysteresis band is the least"
        );
        let crowded = LodSettings {
            near: 10.0,
            mid: 12.0,
            fade: 0.5,
            ..settings()
        };
        let c = fade_bands(&crowded);
        assert_eq!(
            c[0],
            Some(FadeBand {
                start: 9.0,
                end: 11.0
            })
        );
        assert_eq!(
            c[1],
            Some(FadeBand {
                start: 11.0,
                end: 13.0
            })
        );
        let off = LodSettings {
            fade: 0.0,
            ..settings()
        };
        assert_eq!(fade_bands(&off), [None; DRAWN_LEVELS]);
    }

    #[test]
    fn coverages_sum_to_one_until_the_far_band_and_fall_to_zero_through_it() {
        let fade = LodFade::new(&settings());
        for d in sweep() {
            let total: f32 = fade.pick(d, Lod::Near).drawn().map(|(_, c)| c).sum();
            let want = 1.0 - fade.bands()[2].map_or(0.0, |b| b.coarser_share(d));
            assert!((total - want).abs() < 1e-5, "at {d} m: {total} vs {want}");
            assert!(fade.pick(d, Lod::Near).drawn().count() <= 2, "at {d} m");
        }
        assert_eq!(fade.pick(230.0, Lod::Far).drawn().count(), 0);
        assert_eq!(fade.pick(f32::NAN, Lod::Near).drawn().count(), 0);
    }

    #[test]
    fn each_level_fades_in_and_out_continuously_and_monotonically() {
        // Without impostors (the Impostor level is empty), with impostors past the mid band,
        // and with impostors starting inside it (the Far level is empty).
        for impostor in [f32::INFINITY, 120.0, 40.0] {
            let s = LodSettings {
                impostor,
                ..settings()
            };
            let fade = LodFade::new(&s);
            let ends = level_ends(&s);
            for lod in Lod::DRAWN {
                let coverages: Vec<f32> = sweep()
                    .map(|d| coverage_of(&fade.pick(d, Lod::Near), lod))
                    .collect();
                if !level_present(&ends, lod.index()) {
                    assert!(
                        coverages.iter().all(|&c| c == 0.0),
                        "{lod:?} is empty with impostors from {impostor} m"
                    );
                    continue;
                }
                let mut rising = true;
                let mut turns = 0;
                for (k, pair) in coverages.windows(2).enumerate() {
                    let (last, c) = (pair[0], pair[1]);
                    // 1 cm moves a share by at most 1 cm / the narrowest band (2 m).
                    assert!(
                        (c - last).abs() <= 0.01 / 2.0 + 1e-4,
                        "{lod:?} jumps at {} m (impostors from {impostor} m)",
                        (k + 1) as f32 * 0.01
                    );
                    if (rising && c < last) || (!rising && c > last) {
                        rising = !rising;
                        turns += 1;
                    }
                }
                assert_eq!(
                    turns, 1,
                    "{lod:?}: rises to full coverage, then only falls (impostors from {impostor} m)"
                );
            }
        }
    }

    #[test]
    fn the_shader_finds_the_same_coverage_from_its_bands() {
        let fade = LodFade::new(&settings());
        let bands = fade.shader_bands();
        assert_eq!(bands[0], [0.0, 0.0, 19.0, 21.0]);
        assert_eq!(bands[2], [57.0, 63.0, 190.0, 210.0]);
        for d in sweep() {
            let blend = fade.pick(d, Lod::Near);
            for lod in Lod::DRAWN {
                let cpu = coverage_of(&blend, lod);
                let gpu = shader_coverage(&bands[lod.index()], d);
                // A level the CPU does not list may be anything to the shader; a listed one must
                // agree.
                if cpu > 0.0 {
                    assert!((cpu - gpu).abs() < 1e-5, "{lod:?} at {d} m: {cpu} vs {gpu}");
                }
            }
        }
        let off = LodFade::new(&LodSettings {
            fade: 0.0,
            ..settings()
        });
        for (k, b) in off.shader_bands().iter().enumerate() {
            assert_eq!(shader_coverage(b, 1000.0), 1.0, "level {k} unfaded");
        }
    }

    #[test]
    fn outside_the_bands_the_level_follows_distance_and_without_them_hysteresis_holds() {
        let fade = LodFade::new(&settings());
        assert_eq!(fade.pick(10.0, Lod::Far), LodBlend::solid(Lod::Near));
        assert_eq!(fade.pick(100.0, Lod::Near), LodBlend::solid(Lod::Far));
        let inside = fade.pick(20.5, Lod::Near);
        assert_eq!((inside.finer, inside.coarser), (Lod::Near, Lod::Mid));
        assert!((inside.share - 0.75).abs() < 1e-5);
        assert_eq!(inside.main(), Lod::Mid);
        let out = fade.pick(205.0, Lod::Far);
        assert_eq!((out.finer, out.coarser), (Lod::Far, Lod::Beyond));
        assert_eq!(out.drawn().collect::<Vec<_>>(), vec![(Lod::Far, 0.25)]);
        let hard = LodFade::new(&LodSettings {
            fade: 0.0,
            ..settings()
        });
        assert!(!hard.fading());
        assert_eq!(hard.pick(20.5, Lod::Near), LodBlend::solid(Lod::Near));
        assert_eq!(hard.pick(20.5, Lod::Mid), LodBlend::solid(Lod::Mid));
        assert_eq!(hard.pick(21.5, Lod::Near), LodBlend::solid(Lod::Mid));
    }
}
