#if canImport(Glibc)
import Glibc
#endif
import CJPEG

/// Baseline JPEG encoding (libjpeg) of a YCbCr 4:4:4 image into 4:2:2, the layout of a UVC camera's MJPEG
/// frames. For the simulated driver; any thread (each call has its own encoder).
enum SimulatedJPEG {
    /// `ycc` holds `width * height` pixels of three bytes (Y, Cb, Cr), row after row.
    static func encode(ycc: UnsafeRawBufferPointer, width: Int, height: Int, quality: Int32 = 90) -> [UInt8] {
        precondition(ycc.count >= width * height * 3, "image smaller than its dimensions")
        let cinfo = UnsafeMutablePointer<jpeg_compress_struct>.allocate(capacity: 1)
        let jerr = UnsafeMutablePointer<jpeg_error_mgr>.allocate(capacity: 1)
        let out = UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>.allocate(capacity: 1)
        let outSize = UnsafeMutablePointer<UInt>.allocate(capacity: 1)
        cinfo.initialize(to: jpeg_compress_struct())
        jerr.initialize(to: jpeg_error_mgr())
        out.initialize(to: nil)
        outSize.initialize(to: 0)
        defer {
            jpeg_destroy_compress(cinfo)
            free(out.pointee)
            cinfo.deallocate()
            jerr.deallocate()
            out.deallocate()
            outSize.deallocate()
        }
        cinfo.pointee.err = jpeg_std_error(jerr)
        tk_jpeg_create_compress(cinfo)
        jpeg_mem_dest(cinfo, out, outSize)
        cinfo.pointee.image_width = JDIMENSION(width)
        cinfo.pointee.image_height = JDIMENSION(height)
        cinfo.pointee.input_components = 3
        cinfo.pointee.in_color_space = JCS_YCbCr
        jpeg_set_defaults(cinfo)
        cinfo.pointee.comp_info[0].h_samp_factor = 2  // 4:2:2, as UVC cameras send
        cinfo.pointee.comp_info[0].v_samp_factor = 1
        jpeg_set_quality(cinfo, quality, 1)
        jpeg_start_compress(cinfo, 1)
        let base = UnsafeMutablePointer(mutating: ycc.baseAddress!.assumingMemoryBound(to: UInt8.self))
        var row: JSAMPROW? = nil
        for y in 0..<height {
            row = base + y * width * 3
            _ = jpeg_write_scanlines(cinfo, &row, 1)
        }
        jpeg_finish_compress(cinfo)
        guard let bytes = out.pointee else { return [] }
        return Array(UnsafeBufferPointer(start: bytes, count: Int(outSize.pointee)))
    }
}
