// C++ protobuf's side of the comparison suite (bench/compare/run.sh), built
// against libprotobuf with C++ that protoc generates at run time from the
// crate's vendored proto/xla/xla_data.proto.
//
// `harness bench DIR`: one round; each figure is a monotonic clock
// (std::chrono::steady_clock) around N passes after one warm-up pass, printed
// as `RESULT <work> <case> <ns per record>`, as the crate's side prints.
// Decode is `ParseFromString` into one reused `xla::ShapeProto`; encode is
// `SerializeToString` into one reused std::string, from messages decoded
// beforehand.
// `harness once OP N DIR`: OP done N times and nothing else (for callgrind).

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "xla/xla_data.pb.h"

namespace {

std::vector<std::string> ReadRecords(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    std::exit(1);
  }
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> out;
  size_t at = 0;
  while (at + 4 <= all.size()) {
    uint32_t n;
    std::memcpy(&n, all.data() + at, 4);
    out.emplace_back(all.substr(at + 4, n));
    at += 4 + n;
  }
  return out;
}

// Keeps a value alive so that the compiler cannot drop the work.
template <typename T>
void Keep(const T& value) {
  asm volatile("" : : "r"(&value) : "memory");
}

template <typename F>
double Time(long passes, long items, F f) {
  f();
  auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < passes; ++i) f();
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                std::chrono::steady_clock::now() - start)
                .count();
  return static_cast<double>(ns) / static_cast<double>(passes * items);
}

void DecodeAll(const std::vector<std::string>& records, xla::ShapeProto* msg) {
  for (const std::string& r : records) {
    if (!msg->ParseFromString(r)) std::abort();
    Keep(*msg);
  }
}

void EncodeAll(const std::vector<xla::ShapeProto>& msgs, std::string* out) {
  for (const xla::ShapeProto& m : msgs) {
    if (!m.SerializeToString(out)) std::abort();
    Keep(*out);
  }
}

std::vector<xla::ShapeProto> Parsed(const std::vector<std::string>& records) {
  std::vector<xla::ShapeProto> msgs(records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    if (!msgs[i].ParseFromString(records[i])) std::abort();
    std::string again;
    msgs[i].SerializeToString(&again);
    if (again != records[i]) {
      std::fprintf(stderr, "re-serializing record %zu changed its bytes\n", i);
      std::exit(1);
    }
  }
  return msgs;
}

}  // namespace

int main(int argc, char** argv) {
  GOOGLE_PROTOBUF_VERIFY_VERSION;
  if (argc == 3 && std::string(argv[1]) == "bench") {
    const std::string dir = argv[2];
    const std::pair<const char*, long> cases[] = {
        {"mixed", 2000}, {"rank4", 1000000}, {"tuple", 10000}};
    for (const auto& [name, passes] : cases) {
      const auto records = ReadRecords(dir + "/" + name + ".bin");
      const auto msgs = Parsed(records);
      xla::ShapeProto msg;
      std::string out;
      const long items = static_cast<long>(records.size());
      std::printf("RESULT decode %s %.3f\n", name,
                  Time(passes, items, [&] { DecodeAll(records, &msg); }));
      std::printf("RESULT encode %s %.3f\n", name,
                  Time(passes, items, [&] { EncodeAll(msgs, &out); }));
    }
    return 0;
  }
  if (argc == 5 && std::string(argv[1]) == "once") {
    const std::string op = argv[2];
    const long n = std::atol(argv[3]);
    const std::string dir = argv[4];
    const std::string which = op.substr(7);  // after "decode_" / "encode_"
    const auto records = ReadRecords(dir + "/" + which + ".bin");
    const auto msgs = Parsed(records);
    xla::ShapeProto msg;
    std::string out;
    for (long i = 0; i < n; ++i) {
      if (op.rfind("decode_", 0) == 0) {
        DecodeAll(records, &msg);
      } else {
        EncodeAll(msgs, &out);
      }
    }
    return 0;
  }
  std::fprintf(stderr, "usage: harness bench DIR | once OP N DIR\n");
  return 2;
}
