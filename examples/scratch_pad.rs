fn main() {
    for t in [
        "{:T(8,}",
        "{:T(8,128)}",
        "{:T(8,128)(2,1)}",
        "{:T(8,128)E(32)}",
    ] {
        println!(
            "{t} -> {:?}",
            t.parse::<xla_shape::Layout>().map(|l| l.to_string())
        );
    }
}
