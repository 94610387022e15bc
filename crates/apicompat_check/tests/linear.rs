//! Every walk of `check` is linear in the size of the expression it reads: chains of calls and
//! attributes (`f()()()`, `df.a().b().c()`) cost steps in proportion to their length.

use ruff_python_ast::PySourceType;

fn pgcopy_steps(source: &str) -> u64 {
    let parsed = ruff_python_parser::parse_unchecked_source(source, PySourceType::Python);
    apicompat_check::pgcopy::extract(parsed.suite(), source).eval_steps
}

/// A function that builds `x` with `n` chained calls and copies it (the copy makes the
/// process-group walker evaluate `x`).
fn chain(n: usize, link: &str) -> String {
    format!(
        "import copy\ndef g():\n    x = f{}\n    return copy.deepcopy(x)\n",
        link.repeat(n)
    )
}

#[test]
fn call_chains_cost_steps_in_proportion_to_their_length() {
    for link in ["()", ".a()", "(1)(k=2)"] {
        let short = pgcopy_steps(&chain(10, link));
        let long = pgcopy_steps(&chain(20, link));
        // Twice the links: about twice the steps (was 2^10 times as many).
        assert!(
            long <= 2 * short + 16,
            "{link}: {short} steps for 10 links, {long} for 20"
        );
    }
}
