//! Benchmarks of the model at the sizes users hit: critical path, risk analysis and
//! paging on generated schedules of 1,000, 10,000 and 100,000 bars with two links per
//! bar, and plain serde_json serialisation of the same data as paging's yardstick.
//! Targets (issue 2): the 100,000-bar critical path under 100 ms; paging at no less than
//! half the speed of serde_json. Cascades (issue 16): in a 100,000-bar schedule with
//! 200,000 links, a push of everything under 50 ms and a push touching about 1,000
//! items under 5 ms (proportional to what is downstream, not to the schedule), the
//! link index a drag builds once apart. Tracking (issue 17): the late and overdue bars
//! at a status date, and the variance against a baseline, over 100,000 bars in under
//! 30 ms each (a quarter of the bars given some progress, a tenth moved since the
//! baseline). The chart's lanes and label places (issue 21) over every row, copy of
//! the lines included. Figures are recorded in docs/benchmarks.md.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use palmaplan_model::calendar::Calendar;
use palmaplan_model::push::{self, Cascade, LinkIndex, Seeds};
use palmaplan_model::synth::{Spec, generate};
use palmaplan_model::{ItemId, Schedule, cpm, fit, layout, paging, risk, tracking};

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

    // Issue 21: the chart's lanes and labels, laid out again at each change of scale or
    // schedule, over every row of the schedule fitted to 1,000 px.
    let mut g = c.benchmark_group("stack");
    for (n, s) in &schedules {
        let index = layout::RowIndex::new(s);
        let lines = layout::lines(s, &Default::default(), None);
        let (from, to) = s.span().expect("bars");
        let f = fit::fit(from, to, 1_000.0, None);
        g.bench_with_input(BenchmarkId::from_parameter(n), s, |b, s| {
            b.iter(|| {
                let mut lines = lines.clone();
                fit::stack(black_box(s), &index, &mut lines, &f)
            })
        });
    }
    g.finish();

    let (_, big) = schedules.last().expect("three sizes");
    pushes(c, big);
    tracks(c, big);
}

fn tracks(c: &mut Criterion, baseline: &Schedule) {
    let cal = Calendar::for_schedule(baseline);
    let mut s = baseline.clone();
    // A quarter of the bars under way, a tenth moved two working days since the baseline.
    for (k, b) in s.bars.iter_mut().enumerate() {
        if k % 4 == 0 {
            b.progress = (k % 97) as u8;
        }
        if k % 10 == 0 {
            let (start, end) = (cal.add(b.start, 2), cal.add(b.end, 2));
            (b.start, b.end) = (start, end);
        }
    }
    // The middle of the plan: some bars done, some under way, some not begun.
    let (first, last) = s.span().expect("dated");
    let status = first.add_days(first.days_until(last) / 2);
    let critical = cpm::critical_items(&s).expect("acyclic");
    let mut g = c.benchmark_group("tracking");
    g.bench_function("lateness/100000", |b| {
        b.iter(|| tracking::lateness(black_box(&s), &cal, status))
    });
    g.bench_function("variance/100000", |b| {
        b.iter(|| tracking::slippage_with(black_box(&s), baseline, &cal, &critical))
    });
    // With the critical path it needs (what `schedule_lateness` with a reference runs).
    g.bench_function("slippage_with_cpm/100000", |b| {
        b.iter(|| tracking::slippage(black_box(&s), baseline))
    });
    g.finish();
}

/// How many items are downstream of `id` (itself included).
fn downstream(s: &Schedule, index: &LinkIndex, id: ItemId) -> usize {
    let cal = Calendar::for_schedule(s);
    // A push of everything downstream: each item moved by a large shift of the seed.
    let bar = s.bar(palmaplan_model::BarId(id.0)).expect("a bar");
    let far = (cal.add(bar.start, 400), cal.add(bar.end, 400));
    push::preview(s, index, &cal, id, far, Cascade::Push)
        .expect("acyclic")
        .len()
        + 1
}

fn pushes(c: &mut Criterion, s: &Schedule) {
    let cal = Calendar::for_schedule(s);
    let index = LinkIndex::new(s);
    // The seed whose downstream is closest to 1,000 items, among a spread of bars.
    let step = (s.bars.len() / 400).max(1);
    let (seed, reach) = s
        .bars
        .iter()
        .step_by(step)
        .map(|b| (ItemId(b.id.0), downstream(s, &index, ItemId(b.id.0))))
        .min_by_key(|(_, n)| n.abs_diff(1_000))
        .expect("bars");
    let bar = s.bar(palmaplan_model::BarId(seed.0)).expect("a bar");
    let shifted = (cal.add(bar.start, 400), cal.add(bar.end, 400));
    println!(
        "push: {} bars, {} links; seed {} has {reach} items downstream",
        s.bars.len(),
        s.links.len(),
        seed.0
    );
    let mut g = c.benchmark_group("push");
    g.bench_function("link_index/100000", |b| {
        b.iter(|| LinkIndex::new(black_box(s)))
    });
    g.bench_function("everything/100000", |b| {
        b.iter(|| {
            push::push(black_box(s), &index, &cal, Seeds::All, Cascade::Push).expect("acyclic")
        })
    });
    g.bench_function("index_and_everything/100000", |b| {
        b.iter(|| {
            let index = LinkIndex::new(black_box(s));
            push::push(s, &index, &cal, Seeds::All, Cascade::Pull).expect("acyclic")
        })
    });
    g.bench_function(format!("downstream_{reach}/100000"), |b| {
        b.iter(|| {
            push::preview(black_box(s), &index, &cal, seed, shifted, Cascade::Push)
                .expect("acyclic")
        })
    });
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
