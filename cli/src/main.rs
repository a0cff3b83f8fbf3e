//! The `airlock` binary; everything lives in the library so fuzz targets can reach the
//! hook decoders.

fn main() -> std::process::ExitCode {
    airlock_cli::run()
}
