"""PedPy's classic measurements of a Throng recording at one area and one line, as one JSON line.

Usage: measure.py FILE.sqlite|FILE.txt 'X1,Y1 X2,Y2 ...' 'FX,FY TX,TY' [--no-speed]

The polygon is the measurement area, the two points the measurement line from F to T (metres,
the file's x and y, which are Throng's x and z). Forward over the line is (T - F) turned 90
degrees counter-clockwise, as in Throng's levels. Prints, with PedPy 1.5:

- frames, frame_rate, seconds: the frames in the file and (last - first frame) / frame rate;
- mean_classic_density: the mean over frames of compute_classic_density;
- mean_speed: compute_individual_speed (frame_step 1, one-sided at each person's first and last
  frame) averaged over every person in the area at every frame: compute_mean_speed_per_frame
  weighted by the frame's people (its classic density times the area);
- forward, backward: every crossing compute_crossing_frames finds (the frame a step over the
  line ends on; PedPy leaves out each person's last frame, as its adaptive window is empty
  there), each given its direction by the side the step ends on;
- flow: (forward + backward) / seconds; flow_between_crossings: (crossings - 1) over the time
  from the first crossing frame to the last;
- n_t_people, n_t_flow: compute_n_t's final count (people who crossed at least once, either way)
  and that count over seconds;
- load_seconds, total_seconds: wall time to load the file, and for everything.

--no-speed leaves the speed out (null): on millions of rows it is the slowest and largest step.

Used by tests/record_pedpy.rs and the README's 10-minute plaza check.
"""

import json
import pathlib
import sys
import time

import pedpy
from pedpy.methods.method_utils import compute_crossing_frames


def points(text: str) -> list:
    return [tuple(float(v) for v in p.split(",")) for p in text.split()]


def load(path: pathlib.Path) -> pedpy.TrajectoryData:
    if path.suffix == ".sqlite":
        return pedpy.load_trajectory_from_jupedsim_sqlite(trajectory_file=path)
    return pedpy.load_trajectory_from_txt(trajectory_file=path)


def area_readings(
    traj: pedpy.TrajectoryData, area: pedpy.MeasurementArea, with_speed: bool
) -> dict:
    density = pedpy.compute_classic_density(traj_data=traj, measurement_area=area)
    if not with_speed:
        return {"mean_classic_density": float(density.density.mean()), "mean_speed": None}
    speed = pedpy.compute_individual_speed(
        traj_data=traj,
        frame_step=1,
        speed_calculation=pedpy.SpeedCalculation.BORDER_SINGLE_SIDED,
    )
    per_frame = pedpy.compute_mean_speed_per_frame(
        traj_data=traj, individual_speed=speed, measurement_area=area
    )
    both = density.merge(per_frame, on="frame")
    people = both.density * area.area
    mean_speed = float((both.speed * people).sum() / people.sum()) if people.sum() > 0 else 0.0
    return {"mean_classic_density": float(density.density.mean()), "mean_speed": mean_speed}


def line_readings(traj: pedpy.TrajectoryData, ends: list, seconds: float) -> dict:
    (fx, fy), (tx, ty) = ends
    line = pedpy.MeasurementLine(ends)
    crossings = compute_crossing_frames(traj_data=traj, measurement_line=line)
    at_end = crossings.merge(traj.data[["id", "frame", "x", "y"]], on=["id", "frame"])
    # The side of the line a step ends on: positive is forward, (T - F) turned left.
    side = (tx - fx) * (at_end.y - fy) - (ty - fy) * (at_end.x - fx)
    forward = int((side > 0).sum())
    backward = int(len(at_end) - forward)
    total = forward + backward
    between = None
    if total >= 2 and crossings.frame.max() > crossings.frame.min():
        span = (crossings.frame.max() - crossings.frame.min()) / traj.frame_rate
        between = (total - 1) / span
    n_t, _ = pedpy.compute_n_t(traj_data=traj, measurement_line=line)
    people = int(n_t.cumulative_pedestrians.iloc[-1])
    return {
        "forward": forward,
        "backward": backward,
        "flow": total / seconds,
        "flow_between_crossings": between,
        "n_t_people": people,
        "n_t_flow": people / seconds,
    }


def main() -> None:
    path = pathlib.Path(sys.argv[1])
    started = time.monotonic()
    traj = load(path)
    load_seconds = time.monotonic() - started
    frames = traj.data.frame
    seconds = (frames.max() - frames.min()) / traj.frame_rate
    result = {
        "rows": int(len(traj.data)),
        "frames": int(frames.nunique()),
        "frame_rate": float(traj.frame_rate),
        "seconds": float(seconds),
        "load_seconds": load_seconds,
    }
    area = pedpy.MeasurementArea(points(sys.argv[2]))
    result.update(area_readings(traj, area, "--no-speed" not in sys.argv[4:]))
    result.update(line_readings(traj, points(sys.argv[3]), seconds))
    result["total_seconds"] = time.monotonic() - started
    print(json.dumps(result))


if __name__ == "__main__":
    main()
