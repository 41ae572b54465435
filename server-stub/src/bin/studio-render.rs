//! Renders one clip with the embedded engine: `studio-render PROMPT OUT.mp4 [SECONDS] [WxH]`.
//! Prints the wall time; the benchmark compares it with ffmpeg on the same machine.

use std::time::Instant;

use server_stub::engine::{render_clip, VideoSpec};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(prompt), Some(out)) = (args.first(), args.get(1)) else {
        eprintln!("usage: studio-render PROMPT OUT.mp4 [SECONDS] [WIDTHxHEIGHT]");
        std::process::exit(2);
    };
    let mut spec = VideoSpec::default();
    if let Some(seconds) = args.get(2) {
        spec.seconds = seconds.parse().expect("SECONDS is a whole number");
    }
    if let Some(size) = args.get(3) {
        (spec.width, spec.height) =
            VideoSpec::parse_size(size).expect("WIDTHxHEIGHT, even, 128 to 1920");
    }
    let start = Instant::now();
    if let Err(e) = render_clip(prompt, &spec, out.as_ref()) {
        eprintln!("render failed: {e}");
        std::process::exit(1);
    }
    println!("{:.3}", start.elapsed().as_secs_f64());
}
