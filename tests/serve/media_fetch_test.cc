// media_fetch.h's address rule: which peers the fetcher connects to without
// --allow-private-media-urls (public unicast only; loopback, private, link-local, CGNAT,
// documentation, multicast, unspecified and their IPv4-mapped / NAT64 forms are not), and a
// refused scheme or unreachable fetch is a 400 naming the field.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>

#include <string>

#include "serve/common/api_error.h"
#include "serve/common/media_fetch.h"

namespace ogai::serve {
namespace {

bool v4(const char* text) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  EXPECT_EQ(inet_pton(AF_INET, text, &a.sin_addr), 1) << text;
  return public_address(reinterpret_cast<const sockaddr*>(&a));
}

bool v6(const char* text) {
  sockaddr_in6 a{};
  a.sin6_family = AF_INET6;
  EXPECT_EQ(inet_pton(AF_INET6, text, &a.sin6_addr), 1) << text;
  return public_address(reinterpret_cast<const sockaddr*>(&a));
}

TEST(MediaFetchAddress, PublicIpv4OnlyIsAllowed) {
  for (const char* ok : {"8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "192.169.0.1", "11.0.0.1", "223.255.255.254"})
    EXPECT_TRUE(v4(ok)) << ok;
  for (const char* no : {"127.0.0.1", "127.255.0.9", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1",
                         "169.254.169.254", "100.64.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255", "192.0.2.5",
                         "198.18.0.1", "240.0.0.1"})
    EXPECT_FALSE(v4(no)) << no;
}

TEST(MediaFetchAddress, PublicIpv6OnlyIsAllowed) {
  for (const char* ok : {"2606:4700::1111", "2a00:1450:4001::1", "::ffff:8.8.8.8", "64:ff9b::808:808"})
    EXPECT_TRUE(v6(ok)) << ok;
  for (const char* no : {"::1", "::", "fe80::1", "fc00::1", "fd12:3456::1", "ff02::1", "::ffff:127.0.0.1",
                         "::ffff:10.0.0.1", "64:ff9b::a9fe:a9fe", "2001:db8::1", "::127.0.0.1", "fec0::1"})
    EXPECT_FALSE(v6(no)) << no;
}

TEST(MediaFetchAddress, OtherFamiliesAreNot) {
  sockaddr unix_like{};
  unix_like.sa_family = AF_UNIX;
  EXPECT_FALSE(public_address(&unix_like));
  EXPECT_FALSE(public_address(nullptr));
}

TEST(MediaFetch, RefusalsNameTheField) {
  MediaUrlPolicy policy;
  policy.allow = true;
  policy.timeout_ms = 2000;
  try {  // loopback, not allowed: refused before any byte is sent
    fetch_media_url("http://127.0.0.1:9/x.png", policy, 1024, "messages[0].content[0].image_url.url");
    FAIL() << "a loopback URL was fetched";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.status, 400);
    EXPECT_EQ(e.param, "messages[0].content[0].image_url.url");
    EXPECT_NE(e.message.find("127.0.0.1"), std::string::npos) << e.message;
    EXPECT_NE(e.message.find("--allow-private-media-urls"), std::string::npos) << e.message;
  }
  try {  // a scheme libcurl is not allowed to speak
    fetch_media_url("file:///etc/passwd", policy, 1024, "p");
    FAIL() << "a file URL was fetched";
  } catch (const ApiError& e) {
    EXPECT_NE(e.message.find("only http and https"), std::string::npos) << e.message;
  }
}

}  // namespace
}  // namespace ogai::serve
