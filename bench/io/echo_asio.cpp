// nspa-bench io: the Boost.Asio peer (Debian's libasio-dev, standalone Asio): an async
// echo server, 2 threads running the io_context. Usage: echo_asio <port> <ms>
#include <asio.hpp>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>
#include <vector>

using asio::ip::tcp;
static std::atomic<long> served{0};

struct session : std::enable_shared_from_this<session> {
    tcp::socket s;
    char buf[256];
    explicit session(tcp::socket so) : s(std::move(so)) { s.set_option(tcp::no_delay(true)); }
    void read()
    {
        auto self = shared_from_this();
        s.async_read_some(asio::buffer(buf), [self](std::error_code ec, std::size_t n) {
            if (ec) return;
            served++;
            asio::async_write(self->s, asio::buffer(self->buf, n), [self](std::error_code ec2, std::size_t) {
                if (!ec2) self->read();
            });
        });
    }
};

static void do_accept(tcp::acceptor &a)
{
    a.async_accept([&a](std::error_code ec, tcp::socket so) {
        if (!ec) std::make_shared<session>(std::move(so))->read();
        do_accept(a);
    });
}

int main(int argc, char **argv)
{
    if (argc < 3) return 2;
    asio::io_context io;
    tcp::acceptor a(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), (unsigned short)atoi(argv[1])));
    do_accept(a);
    std::printf("READY\n");
    std::fflush(stdout);
    std::vector<std::thread> t;
    for (int i = 0; i < 2; i++) t.emplace_back([&io] { io.run(); });
    std::this_thread::sleep_for(std::chrono::milliseconds(atoi(argv[2])));
    io.stop();
    for (auto &x : t) x.join();
    std::printf("RESULT bench=echo_served impl=asio unit=msgs value=%ld better=info\n", served.load());
    return 0;
}
