"""`tracediff.dask` on a `LocalCluster` of two workers: the map writes a summary dataset, and the
reduce gives the command line's bytes over the traces (skipped when dask is not installed)."""

import shutil
import subprocess
import sys

import pytest

distributed = pytest.importorskip("distributed")

import tracediff  # noqa: E402
import tracediff.dask as td  # noqa: E402

TRACEDIFF = shutil.which("tracediff") or sys.executable


def cli(*args: str, cwd=None) -> subprocess.CompletedProcess:
    """The wheel's `tracediff` command."""
    command = [TRACEDIFF, *args] if TRACEDIFF != sys.executable else [sys.executable, "-m", "tracediff", *args]
    return subprocess.run(command, capture_output=True, cwd=cwd)


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def jobs(fixtures, shared_dir):
    """Multi-rank pairs held out of the dataset's own tests: the fixtures' ranks and, when
    ../shared is there, the real multi-rank job."""
    pairs = [(fixtures / "ranks/control", fixtures / "ranks/test"), (fixtures / "cpuranks/control", fixtures / "cpuranks/test")]
    real = shared_dir / "traces/torch_cpu/multi_rank"
    if real.is_dir():
        pairs.append((real / "control", real / "test"))
    return [(c, t) for c, t in pairs if c.is_dir() and t.is_dir()]


def test_the_map_on_workers_and_the_reduce_give_the_command_lines_bytes(client, fixtures, tmp_path):
    from conftest import SHARED

    for k, (control, test) in enumerate(jobs(fixtures, SHARED)):
        out = tmp_path / f"ds{k}"
        written = td.summarize([control, test], out, client=client)
        ranks = len([p for p in control.iterdir() if ".json" in p.name])
        assert len(written) == ranks + len([p for p in test.iterdir() if ".json" in p.name])
        assert all(p.parent.name in (f"run={control.name}", f"run={test.name}") for p in written)
        c, t = out / f"run={control.name}", out / f"run={test.name}"
        for fmt in ("csv", "json", "table"):
            want = cli("compare", str(control), str(test), "--rank", "all", "--iteration", "all", "--format", fmt, "--no-save")
            assert want.returncode == 0, want.stderr
            got = td.compare(c, t, client=client, rank="all", iteration="all", format=fmt, no_save=True)
            if fmt == "csv":
                # No paths in CSV: the dataset's bytes are the traces' bytes.
                assert got.data == want.stdout
            else:
                # The side headers name the paths given (the dataset's here): the command line
                # over the same paths.
                over_dataset = cli("compare", str(c), str(t), "--rank", "all", "--iteration", "all", "--format", fmt, "--no-save")
                assert got.data == over_dataset.stdout
            assert got.exit_code == 0
        for fmt in ("csv",):
            want = cli("overview", str(control), str(test), "--rank", "all", "--iteration", "all", "--format", fmt)
            got = td.overview(c, t, client=client, rank="all", iteration="all", format=fmt)
            assert got.data == want.stdout
        verdict = td.gate(c, t, client=client, max_step_time_regression="5%", format="json")
        want = cli("gate", str(c), str(t), "--max-step-time-regression", "5%", "--format", "json")
        assert (verdict.data, verdict.exit_code) == (want.stdout, want.returncode)
        assert verdict.passed == (want.returncode == 0)


def test_two_traces_of_one_rank_and_bad_input_raise_trace_errors(client, fixtures, tmp_path):
    with pytest.raises(tracediff.TraceError, match="one rank of one run|already holds rank 0"):
        td.summarize(
            [fixtures / "basic/control/trace.json", fixtures / "basic/test/trace.json.gz"],
            tmp_path / "ds",
            client=client,
            label="same",
        )
    bad = tmp_path / "bad.json"
    bad.write_text('{"traceEvents": [{"ph": "X", ')
    with pytest.raises(tracediff.TraceError, match="bad.json"):
        td.summarize([bad], tmp_path / "ds2", client=client)
    with pytest.raises(tracediff.TraceError, match="nowhere"):
        td.compare(tmp_path / "nowhere", tmp_path / "ds2", client=client)


def test_client_none_takes_the_current_client_or_runs_here(fixtures, tmp_path):
    written = td.summarize(fixtures / "ranks/control", tmp_path / "ds", label="c")
    assert [p.name for p in written] == ["rank=0.parquet", "rank=1.parquet"]
    out = td.compare(tmp_path / "ds", tmp_path / "ds", rank="all", format="csv", no_save=True)
    assert out.text.startswith("name,control_count,")
