// screen-capture: the tutorial's screen-sharing chapter, locally: an X11 screen capturer feeding a file renderer.
//
//     swift run screen-capture [--seconds N] [--out screen.y4m] [--window ID | --region X,Y,W,H] [--fps F]
//
// Captures $DISPLAY (the whole screen by default) at 5 fps with the `.detail` content hint, converts each frame to
// I420 and records it as a Y4M file that ffmpeg/ffplay read, plus a PNG snapshot of the first frame.
// Without a display it fails with a typed error, e.g.:  Xvfb :99 -screen 0 640x480x24 & DISPLAY=:99 swift run screen-capture
import ExampleHelp
import Foundation
import TokKitCapture

ExampleUsage("""
    usage: screen-capture [--seconds N] [--out screen.y4m] [--window ID | --region X,Y,W,H] [--fps F]

    Captures the X display in $DISPLAY (the whole screen by default) and records it as a Y4M file, plus a PNG
    snapshot of the first frame.

      --seconds N    how long to capture (default 3)
      --out FILE     the Y4M file (default screen.y4m)
      --window ID    one window (decimal or 0x… hex) instead of the screen
      --region X,Y,W,H  a rectangle of the screen
      --fps F        frames per second (default 5)
      -h, --help     print this help and exit
    """).answerHelp()

let arguments = CommandLine.arguments
func option(_ name: String) -> String? {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
    return arguments[i + 1]
}
let seconds = Double(option("--seconds") ?? "3") ?? 3
let output = option("--out") ?? "screen.y4m"
var source = ScreenCaptureSource.screen
if let id = option("--window"), let value = UInt(id.hasPrefix("0x") ? String(id.dropFirst(2)) : id, radix: id.hasPrefix("0x") ? 16 : 10) {
    source = .window(value)
} else if let r = option("--region")?.split(separator: ",").compactMap({ Int($0) }), r.count == 4 {
    source = .region(x: r[0], y: r[1], width: r[2], height: r[3])
}
let fps = Double(option("--fps") ?? "5") ?? 5

do {
    let capturer = ScreenCapturer(source: source, options: ScreenCaptureOptions(framesPerSecond: fps))
    let recorder = try FileRenderer(
        path: output, snapshots: .init(every: Int.max, pathPrefix: output + "-snapshot", format: .pngRGB))
    let preview = LocalPreview(capturer: capturer, renderer: recorder)
    try preview.start()
    print("capturing \(source) of \(ProcessInfo.processInfo.environment["DISPLAY"] ?? "(no DISPLAY)") "
        + "at \(fps) fps, hint \(capturer.videoContentHint), shared memory: \(capturer.usesSharedMemory)")
    try await Task.sleep(for: .seconds(seconds))
    preview.stop()
    try recorder.close()
    if let error = preview.captureError { print("capture stopped early: \(error)") }
    print("\(output): \(preview.framesRendered) frames (\(preview.framesDropped) dropped); first frame as \(output)-snapshot*.png")
} catch {
    print("screen-capture: \(error)")
    exit(1)
}
