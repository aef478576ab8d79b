// A test shim, loaded with LD_PRELOAD: every socket that starts listening in the process is logged,
// with the address it is bound to, to the file $CROSSOVER_LISTEN_LOG ("127.0.0.1 41234"). Tests
// use it to see what a run and its ranks listen on without racing them.
#include <arpa/inet.h>
#include <dlfcn.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdio>
#include <cstdlib>

extern "C" int listen(int fd, int backlog) {
  using Listen = int (*)(int, int);
  static const auto real = reinterpret_cast<Listen>(dlsym(RTLD_NEXT, "listen"));
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  const char* log = std::getenv("CROSSOVER_LISTEN_LOG");
  if (log != nullptr && getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0 &&
      (address.ss_family == AF_INET || address.ss_family == AF_INET6)) {
    char text[INET6_ADDRSTRLEN] = "?";
    int port = 0;
    if (address.ss_family == AF_INET) {
      const auto* in = reinterpret_cast<const sockaddr_in*>(&address);
      inet_ntop(AF_INET, &in->sin_addr, text, sizeof text);
      port = ntohs(in->sin_port);
    } else {
      const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&address);
      inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof text);
      port = ntohs(in6->sin6_port);
    }
    if (FILE* out = std::fopen(log, "a")) {
      std::fprintf(out, "%s %d\n", text, port);
      std::fclose(out);
    }
  }
  return real(fd, backlog);
}
