//! Benchmarks of the model at the sizes users hit: critical path, risk analysis and
//! paging on generated schedules of 1,000, 10,000 and 100,000 bars with two links per
//! bar, and plain serde_json serialisation of the same data as paging's yardstick.
//! Targets (issue 2): the 100,000-bar critical path under 100 ms; paging at no less than
//! half the speed of serde_json. Figures are recorded in docs/benchmarks.md.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use palmaplan_model::synth::{Spec, generate};
use palmaplan_model::{cpm, paging, risk};

const SIZES: [usize; 3] = [1_000, 10_000, 100_000];

fn benches(c: &mut Criterion) {
    let schedules: Vec<_> = SIZES.iter().map(|&n| (n, generate(Spec::new(n)))).collect();

    let mut g = c.benchmark_group("critical_path");
    for (n, s) in &schedules {
        g.bench_with_input(BenchmarkId::from_parameter(n), s, |b, s| {
            b.iter(|| cpm::critical_path(black_box(s)).expect("acyclic"))
        });
    }
    g.finish();

    let mut g = c.benchmark_group("risks");
    for (n, s) in &schedules {
        g.bench_with_input(BenchmarkId::from_parameter(n), s, |b, s| {
            b.iter(|| risk::risks(black_box(s)))
        });
    }
    g.finish();

    let mut g = c.benchmark_group("paging");
    for (n, s) in &schedules {
        g.bench_with_input(BenchmarkId::new("paginate", n), s, |b, s| {
            b.iter(|| paging::paginate(black_box(s), None, paging::PAGE_CHARS))
        });
        g.bench_with_input(BenchmarkId::new("serde_json", n), s, |b, s| {
            b.iter(|| serde_json::to_string(black_box(s)).expect("serialisable"))
        });
    }
    g.finish();
}

criterion_group! {
    name = model;
    // Short runs: the 100,000-bar cases are slow enough that a few samples tell the story
    // on a shared 2-core machine, and CI only compiles benches.
    config = Criterion::default().sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    targets = benches
}
criterion_main!(model);
