// libFuzzer entry point (built with -parse-as-library, so libFuzzer provides main); build and run with Fuzz/run vp8 (see Docs/Fuzzing.md).
import TokKitRTCFuzz

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzVP8(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
