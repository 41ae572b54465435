//! Signs one MP4 as the server signs a take: `studio-sign IN.mp4 OUT.mp4 DATA_FOLDER`. Prints
//! the wall time and the peak memory (resident) before and after, as JSON; the benchmark
//! compares the time with a plain copy of the same file.

use std::time::Instant;

use server_stub::credentials::{Facts, Made, SignerSource, Signing};

/// The process's peak resident memory so far, in MiB (Linux's VmHWM).
fn peak_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
            line.split_whitespace().nth(1)?.parse::<f64>().ok()
        })
        .map_or(0.0, |kib| kib / 1024.0)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, output, data] = &args[..] else {
        eprintln!("usage: studio-sign IN.mp4 OUT.mp4 DATA_FOLDER");
        std::process::exit(2);
    };
    let source = SignerSource::Local { data: data.into() };
    let signing = Signing::load(source, false).expect("the signer loads");
    let facts = Facts {
        made: Made::Generated {
            provider: "local".into(),
            model: "local-1".into(),
        },
        job: "bench".into(),
        title: "bench.mp4".into(),
        when: "2026-11-28T00:00:00Z".into(),
        prompt: None,
    };
    let before = peak_mib();
    let start = Instant::now();
    signing
        .sign(&facts, input.as_ref(), output.as_ref(), Vec::new())
        .expect("signed");
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "{{\"seconds\": {seconds:.3}, \"peak_before_mib\": {before:.1}, \"peak_after_mib\": {:.1}}}",
        peak_mib()
    );
}
