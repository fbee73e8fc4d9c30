#!/usr/bin/env python3
"""aiortc-call: the issue 5 loopback call job done by aiortc 1.16, the baseline `call-bench` compares TokKit with.

Two RTCPeerConnections in one process on 127.0.0.1 call each other: each sends 640x480 30 fps VP8 (~1 Mbps) and
48 kHz Opus and receives the other's. Every video frame carries its index in 16 black/white 32x32 blocks (top
row), so the receiver maps each decoded frame back to its capture time. After a warm-up, prints "name value unit"
lines: process CPU (% of one core), decoded fps per direction, capture-to-decode latency p50/p99.

    pip install aiortc==1.16.0          # bash scripts/bootstrap --bench
    python3 Benchmarks/aiortc-call/aiortc_call.py [--seconds 20] [--warmup 2]
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
# aiortc's VP8 encoder starts at 500 kbps; the job is ~1 Mbps.
vpx.DEFAULT_BITRATE = VIDEO_BITRATE
vpx.MAX_BITRATE = max(vpx.MAX_BITRATE, VIDEO_BITRATE)


def now() -> float:
    return time.monotonic()


class PatternTrack(MediaStreamTrack):
    """A moving luma gradient with the frame index stamped in blocks; paced at FPS by the monotonic clock."""

    kind = "video"

    def __init__(self, captured: dict):
        super().__init__()
        self.captured = captured
        self.index = 0
        self.start = None
        row = bytes((x * 255 // (WIDTH - 1)) for x in range(WIDTH))
        self.base = row * 2  # rolled per frame
        self.chroma = bytes([128]) * (WIDTH // 2 * HEIGHT // 2)

    async def recv(self):
        if self.start is None:
            self.start = now()
        due = self.start + self.index / FPS
        delay = due - now()
        if delay > 0:
            await asyncio.sleep(delay)
        i = self.index
        self.index += 1
        shift = (i * 4) % WIDTH
        line = self.base[shift:shift + WIDTH]
        luma = bytearray(line * HEIGHT)
        for bit in range(BITS):
            value = 235 if (i >> bit) & 1 else 16
            block = bytes([value]) * BLOCK
            x = bit * BLOCK
            for y in range(BLOCK):
                o = y * WIDTH + x
                luma[o:o + BLOCK] = block
        frame = av.VideoFrame(WIDTH, HEIGHT, "yuv420p")
        for plane, data in zip(frame.planes, (luma, self.chroma, self.chroma)):
            plane.update(bytes(data)) if plane.line_size == plane.width else _copy_strided(plane, data)
        frame.pts = i * (90_000 // FPS)
        frame.time_base = fractions.Fraction(1, 90_000)
        self.captured[i & 0xFFFF] = now()
        return frame


def _copy_strided(plane, data):
    stride, width = plane.line_size, plane.width
    padded = bytearray(stride * plane.height)
    for y in range(plane.height):
        padded[y * stride:y * stride + width] = data[y * width:(y + 1) * width]
    plane.update(bytes(padded))


def read_index(frame) -> int:
    plane = frame.planes[0]
    data = bytes(plane)
    stride = plane.line_size
    y = BLOCK // 2
    index = 0
    for bit in range(BITS):
        if data[y * stride + bit * BLOCK + BLOCK // 2] > 128:
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
        self.period = b"".join(s.to_bytes(2, "little", signed=True) for s in samples)  # 50 ms, whole cycles

    async def recv(self):
        if self.start is None:
            self.start = now()
        due = self.start + self.index * SAMPLES / SAMPLE_RATE
        delay = due - now()
        if delay > 0:
            await asyncio.sleep(delay)
        offset = (self.index * SAMPLES * 2) % len(self.period)
        chunk = (self.period * 2)[offset:offset + SAMPLES * 2]
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


async def call(seconds: float, warmup: float):
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
    a.addTrack(ToneTrack()); a.addTrack(PatternTrack(captured_a))
    b.addTrack(ToneTrack()); b.addTrack(PatternTrack(captured_b))

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
    usage0, wall0 = resource.getrusage(resource.RUSAGE_SELF), now()
    await asyncio.sleep(seconds)
    usage1, wall1 = resource.getrusage(resource.RUSAGE_SELF), now()
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--warmup", type=float, default=2)
    args = parser.parse_args()
    asyncio.run(call(args.seconds, args.warmup))


if __name__ == "__main__":
    main()
