// Lists the cameras of this machine with every format, size and frame rate they offer, and the format
// TokKit would stream for the default preferences (640x480 at 30 fps).
//
//     swift run list-cameras
import TokKitCapture

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
