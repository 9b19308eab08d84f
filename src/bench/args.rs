//! `throng bench` options, checked before any work starts.

use std::path::PathBuf;

use clap::Args;

use crate::arg_values::{parse_seed, parse_size, parse_whole, WindowSize, MAX_CROWD};

/// What a benchmark run compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BenchMode {
    /// Frustum culling, near/mid/far LOD meshes, one instanced draw per LOD and pass.
    Pipeline,
    /// Frustum culling and instancing at full detail (no LOD).
    Instanced,
    /// No culling, no LOD, one draw per person per pass.
    Naive,
    /// The pipeline with mid and far figures read from the vertex animation texture.
    Vat,
    /// The pipeline with the main pass antialiased (4x multisampling): what antialiasing costs.
    PipelineAa,
    /// The pipeline with people past the level's impostor distance drawn as impostors.
    Impostor,
}

impl BenchMode {
    pub const ALL: [BenchMode; 6] = [
        BenchMode::Pipeline,
        BenchMode::Impostor,
        BenchMode::Instanced,
        BenchMode::Naive,
        BenchMode::Vat,
        BenchMode::PipelineAa,
    ];

    /// What runs without `--modes`.
    pub const DEFAULT: [BenchMode; 2] = [BenchMode::Pipeline, BenchMode::Impostor];

    pub fn name(self) -> &'static str {
        match self {
            BenchMode::Pipeline => "pipeline",
            BenchMode::Instanced => "instanced",
            BenchMode::Naive => "naive",
            BenchMode::Vat => "vat",
            BenchMode::PipelineAa => "pipeline-aa",
            BenchMode::Impostor => "impostor",
        }
    }

    pub fn culls(self) -> bool {
        !matches!(self, BenchMode::Naive)
    }

    pub fn uses_lod(self) -> bool {
        matches!(
            self,
            BenchMode::Pipeline | BenchMode::Vat | BenchMode::PipelineAa | BenchMode::Impostor
        )
    }

    /// Every other mode draws without antialiasing, as the measurements before it did.
    pub fn antialiased(self) -> bool {
        matches!(self, BenchMode::PipelineAa)
    }

    /// Only the impostor mode draws impostors: the pipeline stays as it was measured before.
    pub fn uses_impostors(self) -> bool {
        matches!(self, BenchMode::Impostor)
    }

    pub fn uses_vat(self) -> bool {
        matches!(self, BenchMode::Vat)
    }
}

#[derive(Debug, Clone, Args)]
pub struct BenchArgs {
    /// Level to benchmark.
    #[arg(long, default_value = "levels/plaza.ron")]
    pub level: PathBuf,
    /// Crowd sizes, comma-separated (each 1 to 1000000).
    /// [default: GL 100,300,1000 (minutes on a software renderer); headless 1000,10000,100000]
    #[arg(long, value_parser = parse_sizes, allow_hyphen_values = true)]
    pub sizes: Option<Sizes>,
    /// Measured frames per size and mode (after the warm-up); p95 and the plot's p5-p95 band
    /// need at least 30. [default: GL 30, headless 120]
    #[arg(long, value_parser = parse_bench_frames, allow_hyphen_values = true)]
    pub frames: Option<u32>,
    /// Unmeasured frames before each measurement. [default: GL 3, headless 20]
    #[arg(long, value_parser = parse_warmup, allow_hyphen_values = true)]
    pub warmup: Option<u32>,
    /// Modes, comma-separated: pipeline (culling + LOD + instancing), instanced (culling +
    /// instancing), naive (one draw per person), vat (the pipeline with mid/far figures from the
    /// vertex animation texture), impostor (the pipeline with impostors past the level's
    /// `lod.impostor`; pipeline itself draws none), pipeline-aa (the pipeline antialiased, 4x
    /// multisampling). [default: pipeline,impostor (the others on request); GL only]
    #[arg(long, value_parser = parse_modes)]
    pub modes: Option<Modes>,
    /// Measure the simulation (and culling and packing) without a window, once per size: at
    /// full rate and with the simulation LOD, with a per-phase breakdown.
    #[arg(long)]
    pub headless: bool,
    /// Steer everyone every step (no simulation level of detail): in the GL modes, and the only
    /// variant measured headless.
    #[arg(long)]
    pub no_sim_lod: bool,
    /// Headless: also measure the level with the sandbox's placed things added (two performers,
    /// two food stands, ten fences; each checked to fit), everyone steered every step:
    /// variant `sandbox`, against `full` on the plain level in the same run.
    #[arg(long)]
    pub sandbox: bool,
    /// Headless: also measure what `throng record` costs, per size: the crowd stepped and
    /// every step written to DIR/recording.sqlite and DIR/recording.txt (removed after), into
    /// DIR/recording.csv. A file of 120 frames of 10,000 people is about 75 MB in SQLite.
    #[arg(long)]
    pub recording: bool,
    /// Headless: crowd step rates to measure, comma-separated (60 and/or 30; default: the
    /// level's `crowd.tick_hz`). Each variant runs at each rate; rows at a rate other than 60
    /// are named after it (`full-30hz`, `sim-lod-30hz`), and one of their frames is one crowd
    /// step (1/30 s), so `step ms` compares with the 30 Hz budget (16.7 ms).
    #[arg(long, value_name = "HZ,..", value_parser = parse_crowd_rates)]
    pub crowd_hz: Option<CrowdRates>,
    /// Folder for bench.csv, bench.json (where and how it was measured), bench.png and the
    /// last frame of each run.
    #[arg(long, default_value = "bench-out")]
    pub out: PathBuf,
    /// A previous run's bench.csv (of the same kind, GL or headless): prints this run's medians
    /// against it, draws its medians dashed on bench.png and writes bench-vs-baseline.png.
    #[arg(long, value_name = "OLD.csv")]
    pub baseline: Option<PathBuf>,
    /// Window size for the GL modes.
    #[arg(
        long,
        default_value = "1280x720",
        value_parser = parse_size,
        allow_hyphen_values = true
    )]
    pub size: WindowSize,
    /// Seed for the crowd (the same seed and sizes give the same work).
    #[arg(long, default_value_t = 1, value_parser = parse_seed, allow_hyphen_values = true)]
    pub seed: u64,
    /// Size crowd batches as if the GPU allowed only this many vertex uniform vectors.
    #[arg(
        long,
        value_parser = crate::arg_values::parse_uniform_vectors,
        allow_hyphen_values = true
    )]
    pub max_uniform_vectors: Option<u32>,
}

impl BenchArgs {
    pub fn sizes(&self) -> &[u32] {
        match (&self.sizes, self.headless) {
            (Some(s), _) => &s.0,
            (None, false) => &[100, 300, 1000],
            (None, true) => &[1000, 10_000, 100_000],
        }
    }

    pub fn frames(&self) -> u32 {
        self.frames.unwrap_or(if self.headless { 120 } else { 30 })
    }

    pub fn warmup(&self) -> u32 {
        self.warmup.unwrap_or(if self.headless { 20 } else { 3 })
    }

    /// The GL modes to run: those asked for, else the two the game plays with (a short
    /// default: all six took most of an hour on a software renderer).
    pub fn gl_modes(&self) -> Vec<BenchMode> {
        self.modes
            .as_ref()
            .map_or_else(|| BenchMode::DEFAULT.to_vec(), |m| m.0.clone())
    }

    /// The crowd step rates to measure headless: those asked for, else the level's own.
    pub fn crowd_rates(&self, level_hz: u32) -> Vec<u32> {
        self.crowd_hz
            .as_ref()
            .map_or_else(|| vec![level_hz], |r| r.0.clone())
    }

    /// A combination of options that cannot mean anything, found before any work.
    pub fn conflict(&self) -> Option<String> {
        if self.crowd_hz.is_some() && !self.headless {
            return Some(
                "--crowd-hz measures the simulation's step rates without a window; add --headless"
                    .into(),
            );
        }
        if self.recording && !self.headless {
            return Some(
                "--recording measures `throng record` without a window; add --headless".into(),
            );
        }
        self.modes.as_ref().filter(|_| self.headless).map(|_| {
            "--modes chooses render paths for the GL benchmark; --headless measures the \
             simulation once per size (full rate and with the simulation LOD)"
                .to_string()
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sizes(pub Vec<u32>);

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Modes(pub Vec<BenchMode>);

/// Crowd step rates (Hz), each one of `level::CROWD_TICK_RATES`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrowdRates(pub Vec<u32>);

pub fn parse_crowd_rates(s: &str) -> Result<CrowdRates, String> {
    let allowed = crate::level::CROWD_TICK_RATES
        .map(|r| r.to_string())
        .join(" or ");
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim) {
        let hz = part
            .parse::<u32>()
            .ok()
            .filter(|hz| crate::level::CROWD_TICK_RATES.contains(hz))
            .ok_or_else(|| format!("`{part}` is not a crowd step rate; allowed: {allowed}"))?;
        if out.contains(&hz) {
            return Err(format!("{hz} is listed twice"));
        }
        out.push(hz);
    }
    Ok(CrowdRates(out))
}

/// Measured frames per size and mode.
pub fn parse_bench_frames(s: &str) -> Result<u32, String> {
    parse_whole(s, 1, 100_000).map(|n| n as u32)
}

/// Warm-up frames before each measurement.
pub fn parse_warmup(s: &str) -> Result<u32, String> {
    parse_whole(s, 0, 10_000).map(|n| n as u32)
}

pub fn parse_sizes(s: &str) -> Result<Sizes, String> {
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim) {
        let n = parse_whole(part, 1, MAX_CROWD as u64).map_err(|e| {
            let what = if e.contains("out of range") {
                format!("{part} is out of range")
            } else {
                format!("`{part}` is not a whole number")
            };
            format!("{what}; allowed: comma-separated sizes from 1 to {MAX_CROWD}")
        })?;
        if out.contains(&(n as u32)) {
            return Err(format!("{n} is listed twice"));
        }
        out.push(n as u32);
    }
    Ok(Sizes(out))
}

pub fn parse_modes(s: &str) -> Result<Modes, String> {
    let allowed = BenchMode::ALL.map(BenchMode::name).join(", ");
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim) {
        let mode = BenchMode::ALL
            .into_iter()
            .find(|m| m.name() == part)
            .ok_or_else(|| format!("unknown mode `{part}`; allowed: {allowed}"))?;
        if out.contains(&mode) {
            return Err(format!("mode `{part}` is listed twice"));
        }
        out.push(mode);
    }
    Ok(Modes(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_modes_are_the_pipeline_and_impostors() {
        use clap::Parser;
        #[derive(Parser)]
        struct Wrap {
            #[command(flatten)]
            bench: BenchArgs,
        }
        let parse = |args: &[&str]| Wrap::try_parse_from(args).expect("parses").bench;
        assert_eq!(
            parse(&["bench"]).gl_modes(),
            [BenchMode::Pipeline, BenchMode::Impostor]
        );
        assert_eq!(
            parse(&["bench", "--modes", "naive,vat,pipeline-aa"]).gl_modes(),
            [BenchMode::Naive, BenchMode::Vat, BenchMode::PipelineAa]
        );
    }

    #[test]
    fn sizes_and_modes_are_checked() {
        assert_eq!(parse_sizes("1000, 10000"), Ok(Sizes(vec![1000, 10000])));
        assert_eq!(
            parse_sizes("0").unwrap_err(),
            "0 is out of range; allowed: comma-separated sizes from 1 to 1000000"
        );
        assert!(parse_sizes("-5")
            .unwrap_err()
            .contains("-5 is out of range"));
        assert!(parse_sizes("5000000").unwrap_err().contains("out of range"));
        assert_eq!(
            parse_sizes("99999999999999999999").unwrap_err(),
            "99999999999999999999 is out of range; allowed: comma-separated sizes from 1 to 1000000"
        );
        assert_eq!(
            parse_bench_frames("-5").unwrap_err(),
            "`-5` is out of range; allowed: 1 to 100000"
        );
        assert_eq!(
            parse_warmup("99999999999").unwrap_err(),
            "`99999999999` is out of range; allowed: 0 to 10000"
        );
        assert!(parse_sizes("10,ten")
            .unwrap_err()
            .contains("`ten` is not a whole number"));
        assert_eq!(parse_sizes("10,10").unwrap_err(), "10 is listed twice");
        assert_eq!(
            parse_modes("pipeline,naive"),
            Ok(Modes(vec![BenchMode::Pipeline, BenchMode::Naive]))
        );
        assert_eq!(parse_crowd_rates("60,30"), Ok(CrowdRates(vec![60, 30])));
        assert_eq!(
            parse_crowd_rates("60,45").unwrap_err(),
            "`45` is not a crowd step rate; allowed: 60 or 30"
        );
        assert_eq!(
            parse_crowd_rates("30,30").unwrap_err(),
            "30 is listed twice"
        );
        assert_eq!(
            parse_modes("pipeline,fast").unwrap_err(),
            "unknown mode `fast`; allowed: pipeline, impostor, instanced, naive, vat, pipeline-aa"
        );
    }
}
