// libFuzzer entry point (built with -parse-as-library, so libFuzzer provides main); build and run with Fuzz/run sdp (see Docs/Fuzzing.md).
import TokKitRTCFuzz

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzSDP(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
