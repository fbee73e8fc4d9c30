#!/usr/bin/env python3
"""aiortc-call: the issue 5 loopback call job done by aiortc 1.16, the baseline `call-bench` compares TokKit with.

Two RTCPeerConnections in one process on 127.0.0.1 call each other: each sends 640x480 30 fps VP8 (~1 Mbps) and
48 kHz Opus and receives the other's. The pictures are call-bench's (Benchmarks/call-bench/PictureSequence.swift),
read from the raw I420 file call-bench writes (--frames, --frame-count frames back to back, tight strides), so both
jobs encode exactly the same frames. Every picture carries its index in the loop in 16 black/white 32x32 blocks
(top row); the receiver reads it back from each decoded frame to find the frame's capture time. After a warm-up,
prints "name value unit" lines: process CPU (% of one core), decoded fps per direction, capture-to-decode latency
p50/p99, bytes sent per second (RTP payload + headers as counted by getStats, both directions).

    pip install aiortc==1.16.0          # bash scripts/bootstrap --bench
    python3 Benchmarks/aiortc-call/aiortc_call.py --frames FILE --frame-count N [--seconds 20] [--warmup 2]

Run it through call-bench, which writes FILE.
"""
import argparse
import asyncio
import fractions
import math
import resource
import time

import aioice.ice
import aiortc.codecs.vpx as vpx
import av
from aiortc import MediaStreamTrack, RTCPeerConnection

WIDTH, HEIGHT, FPS = 640, 480, 30
BLOCK, BITS = 32, 16
VIDEO_BITRATE = 1_000_000
SAMPLE_RATE, SAMPLES = 48_000, 960  # 20 ms

# aioice never offers 127.0.0.1 on its own (NOTES.md): gather on loopback only.
aioice.ice.get_host_addresses = lambda use_ipv4=True, use_ipv6=False: ["127.0.0.1"]
# aiortc's VP8 encoder starts at 500 kbps and follows its receiver's REMB estimate (250 kbps-1.5 Mbps, recreating the
# encoder on every change over 10 %); the job is 1 Mbps, as TokKit's (which gets no REMB from its receiver): pin it.
vpx.DEFAULT_BITRATE = VIDEO_BITRATE
vpx.MIN_BITRATE = VIDEO_BITRATE
vpx.MAX_BITRATE = VIDEO_BITRATE


def now() -> float:
    return time.monotonic()


class PatternTrack(MediaStreamTrack):
    """call-bench's picture sequence, looped; paced at FPS by the monotonic clock. Each plane is prepared once (in
    the line size PyAV allocates), so a frame costs what a camera frame costs: one copy into the AVFrame."""

    kind = "video"

    def __init__(self, captured: dict, frames: list):
        super().__init__()
        self.captured = captured
        self.frames = frames
        self.index = 0
        self.start = None

    async def recv(self):
        if self.start is None:
            self.start = now()
        due = self.start + self.index / FPS
        delay = due - now()
        if delay > 0:
            await asyncio.sleep(delay)
        i = self.index
        self.index += 1
        n = i % len(self.frames)
        frame = av.VideoFrame(WIDTH, HEIGHT, "yuv420p")
        for plane, data in zip(frame.planes, self.frames[n]):
            plane.update(data)
        frame.pts = i * (90_000 // FPS)
        frame.time_base = fractions.Fraction(1, 90_000)
        self.captured[n] = now()
        return frame


def load_frames(path: str, count: int) -> list:
    """The raw I420 frames, each as three plane buffers padded to PyAV's line sizes."""
    y_size, c_size = WIDTH * HEIGHT, WIDTH * HEIGHT // 4
    frame_size = y_size + 2 * c_size
    with open(path, "rb") as f:
        raw = f.read()
    if len(raw) != frame_size * count:
        raise SystemExit(f"aiortc-call: {path} holds {len(raw)} bytes, expected {count} frames of {frame_size}")
    probe = av.VideoFrame(WIDTH, HEIGHT, "yuv420p")
    strides = [(p.line_size, p.width, p.height) for p in probe.planes]
    frames = []
    for k in range(count):
        base = k * frame_size
        planes = (raw[base:base + y_size], raw[base + y_size:base + y_size + c_size],
                  raw[base + y_size + c_size:base + frame_size])
        frames.append(tuple(_pad(data, *s) for data, s in zip(planes, strides)))
    return frames


def _pad(data: bytes, stride: int, width: int, height: int) -> bytes:
    if stride == width:
        return data
    padded = bytearray(stride * height)
    for y in range(height):
        padded[y * stride:y * stride + width] = data[y * width:(y + 1) * width]
    return bytes(padded)


def read_index(frame) -> int:
    """The stamped index, from 16 bytes of the Y plane (no copy of the plane)."""
    plane = frame.planes[0]
    data = memoryview(plane)
    row = (BLOCK // 2) * plane.line_size + BLOCK // 2
    index = 0
    for bit in range(BITS):
        if data[row + bit * BLOCK] > 128:
            index |= 1 << bit
    return index


class ToneTrack(MediaStreamTrack):
    """A 440 Hz tone, 20 ms frames, paced by the monotonic clock."""

    kind = "audio"

    def __init__(self):
        super().__init__()
        self.index = 0
        self.start = None
        samples = [int(8000 * math.sin(2 * math.pi * 440 * n / SAMPLE_RATE)) for n in range(SAMPLE_RATE // 20)]
        period = b"".join(s.to_bytes(2, "little", signed=True) for s in samples)  # 50 ms, whole cycles
        self.twice = period * 2  # so any 20 ms window is one slice
        self.period_bytes = len(period)

    async def recv(self):
        if self.start is None:
            self.start = now()
        due = self.start + self.index * SAMPLES / SAMPLE_RATE
        delay = due - now()
        if delay > 0:
            await asyncio.sleep(delay)
        offset = (self.index * SAMPLES * 2) % self.period_bytes
        chunk = self.twice[offset:offset + SAMPLES * 2]
        frame = av.AudioFrame(format="s16", layout="mono", samples=SAMPLES)
        frame.planes[0].update(chunk)
        frame.sample_rate = SAMPLE_RATE
        frame.pts = self.index * SAMPLES
        frame.time_base = fractions.Fraction(1, SAMPLE_RATE)
        self.index += 1
        return frame


class Receiver:
    """Consumes one received track; records decode times and latencies once `measuring` is set."""

    def __init__(self, name: str, captured: dict):
        self.name, self.captured = name, captured
        self.measuring = False
        self.frames = 0
        self.latencies = []

    async def consume(self, track):
        try:
            while True:
                frame = await track.recv()
                if not self.measuring:
                    continue
                self.frames += 1
                if track.kind == "video":
                    t = self.captured.get(read_index(frame))
                    if t is not None:
                        self.latencies.append((now() - t) * 1000)
        except Exception:  # MediaStreamError at the end of the call
            return


def percentile(values, p):
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


async def bytes_sent(*pcs) -> int:
    total = 0
    for pc in pcs:
        for stat in (await pc.getStats()).values():
            if stat.type == "outbound-rtp":
                total += stat.bytesSent
    return total


async def call(seconds: float, warmup: float, frames: list):
    a, b = RTCPeerConnection(), RTCPeerConnection()
    captured_a, captured_b = {}, {}
    receivers = []
    tasks = []

    def on_track(pc_name, captured):
        def handler(track):
            r = Receiver(f"{pc_name}.{track.kind}", captured)
            receivers.append((track.kind, r))
            tasks.append(asyncio.ensure_future(r.consume(track)))
        return handler

    a.on("track", on_track("a", captured_b))  # a receives b's video
    b.on("track", on_track("b", captured_a))
    a.addTrack(ToneTrack()); a.addTrack(PatternTrack(captured_a, frames))
    b.addTrack(ToneTrack()); b.addTrack(PatternTrack(captured_b, frames))

    await a.setLocalDescription(await a.createOffer())
    await b.setRemoteDescription(a.localDescription)
    await b.setLocalDescription(await b.createAnswer())
    await a.setRemoteDescription(b.localDescription)
    deadline = now() + 10
    while (a.connectionState != "connected" or b.connectionState != "connected") and now() < deadline:
        await asyncio.sleep(0.01)
    if a.connectionState != "connected" or b.connectionState != "connected":
        raise SystemExit(f"aiortc-call: not connected ({a.connectionState}, {b.connectionState})")

    await asyncio.sleep(warmup)
    for _, r in receivers:
        r.measuring = True
    sent0 = await bytes_sent(a, b)
    usage0, wall0 = resource.getrusage(resource.RUSAGE_SELF), now()
    await asyncio.sleep(seconds)
    usage1, wall1 = resource.getrusage(resource.RUSAGE_SELF), now()
    sent1 = await bytes_sent(a, b)
    for _, r in receivers:
        r.measuring = False
    await a.close()
    await b.close()
    for t in tasks:
        t.cancel()

    elapsed = wall1 - wall0
    cpu = (usage1.ru_utime - usage0.ru_utime + usage1.ru_stime - usage0.ru_stime) / elapsed * 100
    video = [r for kind, r in receivers if kind == "video"]
    audio = [r for kind, r in receivers if kind == "audio"]
    latencies = [x for r in video for x in r.latencies]
    print(f"cpu {cpu:.1f} %")
    for r in video:
        print(f"fps_{r.name.split('.')[0]} {r.frames / elapsed:.1f} fps")
    print(f"fps {sum(r.frames for r in video) / len(video) / elapsed:.1f} fps" if video else "fps 0 fps")
    print(f"audio_frames {sum(r.frames for r in audio) / max(1, len(audio)) / elapsed:.1f} 1/s")
    print(f"latency_p50 {percentile(latencies, 50):.1f} ms")
    print(f"latency_p99 {percentile(latencies, 99):.1f} ms")
    print(f"bytes_per_second {(sent1 - sent0) / elapsed:.0f} B/s")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--warmup", type=float, default=2)
    parser.add_argument("--frames", required=True, help="raw I420 640x480 frames written by call-bench")
    parser.add_argument("--frame-count", type=int, required=True)
    args = parser.parse_args()
    asyncio.run(call(args.seconds, args.warmup, load_frames(args.frames, args.frame_count)))


if __name__ == "__main__":
    main()
