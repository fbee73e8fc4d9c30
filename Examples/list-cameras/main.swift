// Lists the cameras of this machine (V4L2 video capture nodes) with every format, size and frame rate they
// offer, marking formats TokKit cannot stream from.
//
//     swift run list-cameras
import ExampleHelp
import TokKitCapture

ExampleUsage("""
    usage: list-cameras

    Lists the V4L2 cameras of this machine with every format, size and frame rate they offer.

      -h, --help     print this help and exit
    """).answerHelp()

let cameras = CameraCapturer.availableCameras()
if cameras.isEmpty {
    print("no video devices found")
}
for (index, camera) in cameras.enumerated() {
    print("#\(index) \(camera)")
    for format in camera.formats {
        let usable = format.pixelFormat == nil ? "  (not usable by TokKit)" : ""
        print("    \(format)\(usable)")
        for size in format.sizes {
            print("        \(size)")
        }
    }
}
