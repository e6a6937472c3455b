fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let sc = lfnlab_core::scenario::load_file(std::path::Path::new(&args[0]), &args[1..]).unwrap_or_else(|e| panic!("{e}"));
    let out = lfnlab_core::sim::run(&sc).unwrap_or_else(|e| panic!("{e}"));
    println!("{}", serde_json::to_string_pretty(&out.summary).unwrap());
    println!("tcp rows {} flows rows {} queue rows {}", out.tcp.num_rows(), out.flows.num_rows(), out.queues.num_rows());
}
