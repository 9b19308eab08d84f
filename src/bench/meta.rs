//! Where and how a run was measured: bench.json next to bench.csv (the CSV keeps its columns,
//! so old and new files compare), and the plot's subtitle.

use serde::Serialize;

use super::Machine;

/// The sidecar's contents. `gl_renderer` is "headless" for `--headless` runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunMeta {
    /// "GL" or "headless".
    pub kind: &'static str,
    pub commit: String,
    /// When the run started, UTC, ISO 8601.
    pub date_utc: String,
    pub cpu: String,
    pub cores: usize,
    pub simulation_threads: usize,
    pub steering_kernel: &'static str,
    pub gl_renderer: String,
    pub level: String,
    pub level_name: String,
    pub seed: u64,
    pub sizes: Vec<u32>,
    /// GL modes, or the headless variants.
    pub modes: Vec<String>,
    pub frames: u32,
    pub warmup: u32,
    /// "WIDTHxHEIGHT" for GL runs; null headless.
    pub window: Option<String>,
    pub sim_lod: bool,
    pub baseline: Option<String>,
    /// The up-front estimate and what the run took, in seconds.
    pub estimated_s: f64,
    pub elapsed_s: f64,
}

impl RunMeta {
    /// The plot's subtitle: date, commit, renderer, CPU, seed.
    pub fn subtitle(&self) -> String {
        let date = self.date_utc.replace('T', " ").replace('Z', " UTC");
        let date = date.get(..16).map_or(date.clone(), |d| format!("{d} UTC"));
        format!(
            "{date}, commit {}, {}, {} ({} cores), seed {}",
            self.commit, self.gl_renderer, self.cpu, self.cores, self.seed
        )
    }

    pub fn json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }
}

/// What a run measures and on what: everything `RunMeta` holds but the GL renderer, the dates
/// and the times.
pub struct MetaSource<'a> {
    pub machine: &'a Machine,
    pub kind: &'static str,
    pub level: &'a std::path::Path,
    pub level_name: &'a str,
    pub modes: Vec<String>,
}

impl MetaSource<'_> {
    pub fn meta(&self, args: &super::args::BenchArgs, started: std::time::SystemTime) -> RunMeta {
        let gl = self.kind == "GL";
        RunMeta {
            kind: self.kind,
            commit: self.machine.commit.clone(),
            date_utc: utc_timestamp(started),
            cpu: cpu_model(),
            cores: self.machine.cores,
            simulation_threads: self.machine.threads,
            steering_kernel: self.machine.simd,
            gl_renderer: if gl {
                "unknown".into()
            } else {
                "headless".into()
            },
            level: self.level.display().to_string(),
            level_name: self.level_name.to_string(),
            seed: args.seed,
            sizes: args.sizes().to_vec(),
            modes: self.modes.clone(),
            frames: args.frames(),
            warmup: args.warmup(),
            window: gl.then(|| format!("{}x{}", args.size.width, args.size.height)),
            sim_lod: !args.no_sim_lod,
            baseline: args.baseline.as_ref().map(|p| p.display().to_string()),
            estimated_s: 0.0,
            elapsed_s: 0.0,
        }
    }
}

/// The CPU's model name from /proc/cpuinfo, or "unknown CPU" where there is none.
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| cpu_model_in(&text))
        .unwrap_or_else(|| "unknown CPU".into())
}

fn cpu_model_in(cpuinfo: &str) -> Option<String> {
    cpuinfo
        .lines()
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.trim() == "model name")
        .map(|(_, v)| v.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|v| !v.is_empty())
}

/// `t` as `YYYY-MM-DDTHH:MM:SSZ` (times before 1970 as the epoch).
pub fn utc_timestamp(t: std::time::SystemTime) -> String {
    let secs = t
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    )
}

/// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian calendar
/// (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn timestamps_are_utc_calendar_dates() {
        let at = |s: u64| utc_timestamp(UNIX_EPOCH + Duration::from_secs(s));
        assert_eq!(at(0), "1970-01-01T00:00:00Z");
        assert_eq!(at(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(at(1_796_322_072), "2026-12-03T18:21:12Z");
        assert_eq!(at(4_102_444_799), "2099-12-31T23:59:59Z");
    }

    #[test]
    fn the_cpu_model_is_the_first_model_name() {
        let info = "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD  EPYC 7B13\n\
                    processor\t: 1\nmodel name\t: other\n";
        assert_eq!(cpu_model_in(info).as_deref(), Some("AMD EPYC 7B13"));
        assert_eq!(cpu_model_in("processor : 0\n"), None);
    }

    #[test]
    fn the_subtitle_names_date_commit_renderer_cpu_and_seed() {
        let meta = RunMeta {
            kind: "GL",
            commit: "abc123".into(),
            date_utc: "2026-12-03T18:21:12Z".into(),
            cpu: "AMD EPYC".into(),
            cores: 2,
            simulation_threads: 2,
            steering_kernel: "avx2",
            gl_renderer: "llvmpipe".into(),
            level: "levels/plaza.ron".into(),
            level_name: "Central Plaza".into(),
            seed: 7,
            sizes: vec![100],
            modes: vec!["pipeline".into()],
            frames: 30,
            warmup: 3,
            window: Some("1280x720".into()),
            sim_lod: true,
            baseline: None,
            estimated_s: 1.0,
            elapsed_s: 2.0,
        };
        assert_eq!(
            meta.subtitle(),
            "2026-12-03 18:21 UTC, commit abc123, llvmpipe, AMD EPYC (2 cores), seed 7"
        );
        let json: serde_json::Value = serde_json::from_str(&meta.json()).expect("json");
        assert_eq!(json["gl_renderer"], "llvmpipe");
        assert_eq!(json["baseline"], serde_json::Value::Null);
    }
}
