//! `studio-wasm-bindgen INPUT.wasm OUT_DIR OUT_NAME`: what `wasm-bindgen --target web
//! --out-dir OUT_DIR --out-name OUT_NAME INPUT.wasm` does (with its defaults: TypeScript
//! declarations, demangled names, the module's default URL beside the JS),
//! through wasm-bindgen's own library. A first start builds this in about half the CPU time of
//! `cargo install wasm-bindgen-cli`, whose test runner, HTTP server and HTTP client only the
//! tests need (they install the CLI themselves).

use std::process::ExitCode;

use wasm_bindgen_cli_support::Bindgen;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, out_dir, out_name] = &args[..] else {
        eprintln!("usage: studio-wasm-bindgen INPUT.wasm OUT_DIR OUT_NAME");
        return ExitCode::from(2);
    };
    let mut bindgen = Bindgen::new();
    let generated = bindgen.web(true).and_then(|b| {
        b.input_path(input)
            .typescript(true)
            .demangle(true)
            .omit_default_module_path(false)
            .out_name(out_name)
            .generate(out_dir)
    });
    match generated {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("studio-wasm-bindgen: {e:#}");
            ExitCode::FAILURE
        }
    }
}
