//! Budgeted fuzzing of the offline tools' model paths (inspect, pose, bake) on mutated real
//! models: every case must end in Ok or an error within the time and peak-heap budgets of
//! `support/budget.rs`, never a panic or a runaway allocation.

#[path = "support/budget.rs"]
mod budget;

use std::hint::black_box;

#[test]
fn budget_measures_the_peak_not_the_end() {
    let (len, usage) = budget::measure(|| {
        let big = black_box(vec![0u8; 64 << 20]);
        big.len()
    });
    assert_eq!(len, 64 << 20);
    assert!(
        usage.peak_bytes >= 64 << 20 && usage.peak_bytes < 65 << 20,
        "{usage:?}"
    );
    assert!(usage.check("64 MiB", budget::DEFAULT).is_ok());
    let over = budget::Budget {
        peak_bytes: 32 << 20,
        ..budget::DEFAULT
    };
    let err = usage.check("case 7", over).unwrap_err();
    assert_eq!(err, "case 7: peak heap 64 MiB, budget 32 MiB");
}

#[test]
fn budget_reports_time_overruns() {
    let ((), usage) = budget::measure(|| std::thread::sleep(std::time::Duration::from_millis(30)));
    let tight = budget::Budget {
        time: std::time::Duration::from_millis(10),
        ..budget::DEFAULT
    };
    let err = usage.check("slow", tight).unwrap_err();
    assert!(err.starts_with("slow: took 0.0"), "{err}");
    assert!(usage.peak_bytes < 1 << 20, "{usage:?}");
}

/// Run by `budget_aborts_past_the_hard_cap` in a child process: it must not return.
#[test]
#[ignore = "aborts on purpose; run as a child process by budget_aborts_past_the_hard_cap"]
fn budget_hard_cap_child() {
    let (len, _) = budget::measure(|| black_box(vec![0u8; budget::HARD_CAP_BYTES + 1]).len());
    println!("allocated {len} bytes past the cap");
}

#[test]
fn budget_aborts_past_the_hard_cap() {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "budget_hard_cap_child",
            "--ignored",
            "--nocapture",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "budget: refused an allocation of {} bytes",
            budget::HARD_CAP_BYTES + 1
        )),
        "{stderr}"
    );
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("past the cap"),
        "the child went on past the cap"
    );
}
