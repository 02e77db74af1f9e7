//! Load generators for the product's realtime paths. Each scenario prints JSON results.
fn main() {
    eprintln!("usage: load-tests <scenario> (scenarios are added with the realtime and collaboration work)");
    std::process::exit(2);
}
