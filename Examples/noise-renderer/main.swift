// noise-renderer: the SDK sample's custom capturer and renderer, on Linux.
//
// A NoiseCapturer (random ARGB frames) feeds a LocalPreview, which converts each frame to I420 and hands it to
// a GrayscaleRenderer (the sample's black-and-white renderer). After a couple of seconds the last image is
// written as a PNG.
//
//   swift run noise-renderer [output.png] [--seconds S] [--size WxH] [--fps F]
import TokKitCapture

#if canImport(Glibc)
import Glibc
#endif

struct Options {
    var output = "./noise.png"
    var seconds = 2.0
    var width = 640
    var height = 480
    var fps = 30.0

    static let usage = "usage: noise-renderer [output.png] [--seconds S] [--size WxH] [--fps F]"

    init(_ arguments: ArraySlice<String>) throws(UsageError) {
        var args = arguments
        while let arg = args.popFirst() {
            switch arg {
            case "-h", "--help": throw UsageError(message: Self.usage, status: 0)
            case "--seconds":
                guard let v = args.popFirst().flatMap(Double.init), v > 0, v <= 3600 else { throw UsageError(bad: arg) }
                seconds = v
            case "--fps":
                guard let v = args.popFirst().flatMap(Double.init) else { throw UsageError(bad: arg) }
                fps = v
            case "--size":
                let parts = args.popFirst()?.split(separator: "x").compactMap { Int($0) } ?? []
                guard parts.count == 2 else { throw UsageError(bad: arg) }
                (width, height) = (parts[0], parts[1])
            case _ where arg.hasPrefix("-"): throw UsageError(bad: arg)
            default: output = arg
            }
        }
    }
}

struct UsageError: Error {
    var message: String
    var status: Int32 = 2
    init(message: String, status: Int32) { (self.message, self.status) = (message, status) }
    init(bad option: String) { message = "noise-renderer: bad or missing value for \(option)\n\(Options.usage)" }
}

func fail(_ message: String, status: Int32 = 1) -> Never {
    var text = message + "\n"
    text.withUTF8 { _ = write(status == 0 ? STDOUT_FILENO : STDERR_FILENO, $0.baseAddress, $0.count) }
    exit(status)
}

let options: Options
do { options = try Options(CommandLine.arguments.dropFirst()) } catch { fail(error.message, status: error.status) }

let renderer = GrayscaleRenderer()
let capturer = NoiseCapturer(width: options.width, height: options.height, framesPerSecond: options.fps)
let preview = LocalPreview(capturer: capturer, renderer: renderer)
do { try preview.start() } catch { fail("noise-renderer: cannot start the capturer: \(error)") }
try await Task.sleep(for: .seconds(options.seconds))
preview.stop()

do { try renderer.writeImage(to: options.output, format: .png) } catch { fail("noise-renderer: \(error)") }
let size = renderer.lastSize.map { "\($0.width)x\($0.height)" } ?? "-"
print("frames: \(renderer.frameCount) rendered, \(preview.framesDropped) dropped, last \(size) -> \(options.output)")
