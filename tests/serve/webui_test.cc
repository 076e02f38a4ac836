// The chat page's embedded files and routes as units (src/serve/webui/): the files in the binary are
// the ones in the source tree, within their size budget, each asset the page names embedded; the
// answers carry their Content-Type, policy and cache headers; the API key never guards the page.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <string>

#include "serve/ops/auth.h"
#include "serve/webui/chat_page.h"
#include "serve/webui/webui_assets.h"

namespace ogai::serve::webui {
namespace {

std::string source_file(const std::string& name) {
  std::ifstream in(std::string(OGAI_SOURCE_DIR) + "/src/serve/webui/" + name, std::ios::binary);
  EXPECT_TRUE(in) << name;
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

http::Request get(std::string path, std::string method = "GET") {
  http::Request r;
  r.method = std::move(method);
  r.path = r.target = std::move(path);
  return r;
}

std::string field(const http::Response& r, const std::string& name) {
  for (const auto& [n, v] : r.fields)
    if (n == name) return v;
  return "";
}

TEST(WebuiAssets, AreTheSourceFilesWithinTheirBudget) {
  std::size_t total = 0;
  std::set<std::string> names;
  for (const EmbeddedFile& f : embedded_files()) {
    names.insert(std::string(f.name));
    total += f.bytes.size();
    if (f.name != "index.html") {
      EXPECT_EQ(f.bytes, source_file(std::string(f.name))) << f.name;
    }
  }
  EXPECT_EQ(embedded_files().front().name, "index.html");
  EXPECT_EQ(names, (std::set<std::string>{"index.html", "app.js", "markdown.js", "style.css", "icon.svg"}));
  EXPECT_LE(total, kAssetBudgetBytes) << "the chat page outgrew its budget";
  EXPECT_GT(total, 10000u);  // not an empty stand-in
}

TEST(WebuiAssets, IndexNamesEveryAssetByTheBuildsVersion) {
  const std::string index(embedded_files().front().bytes);
  EXPECT_TRUE(std::regex_match(std::string(asset_version()), std::regex("[0-9a-f]{12}")));
  EXPECT_EQ(index.find("@ASSET_VERSION@"), std::string::npos);
  std::string expected = source_file("index.html");
  for (std::size_t at; (at = expected.find("@ASSET_VERSION@")) != std::string::npos;)
    expected.replace(at, 15, asset_version());
  EXPECT_EQ(index, expected);
  const std::regex ref("(src|href)=\"/webui/([a-z.]+)\\?v=([0-9a-f]+)\"");
  int refs = 0;
  for (auto it = std::sregex_iterator(index.begin(), index.end(), ref); it != std::sregex_iterator(); ++it, ++refs) {
    EXPECT_EQ((*it)[3].str(), asset_version());
    EXPECT_EQ(page_response(get("/webui/" + (*it)[2].str())).status, 200) << (*it)[2];
  }
  EXPECT_EQ(refs, 4);
}

TEST(WebuiRoutes, OwnTheRootAndTheAssetFolder) {
  for (const char* p : {"/", "/index.html", "/webui/app.js", "/webui/x"}) EXPECT_TRUE(is_page_path(p)) << p;
  for (const char* p : {"", "/webui/", "/webui", "/v1/models", "/index.htm", "/chat/completions", "//"})
    EXPECT_FALSE(is_page_path(p)) << p;
}

TEST(WebuiRoutes, ContentTypesByExtension) {
  EXPECT_EQ(content_type_of("index.html"), "text/html; charset=utf-8");
  EXPECT_EQ(content_type_of("app.js"), "text/javascript; charset=utf-8");
  EXPECT_EQ(content_type_of("style.css"), "text/css; charset=utf-8");
  EXPECT_EQ(content_type_of("icon.svg"), "image/svg+xml");
  EXPECT_EQ(content_type_of("data.bin"), "application/octet-stream");
}

TEST(WebuiRoutes, PageAndAssetsCarryPolicyAndCacheHeaders) {
  const http::Response page = page_response(get("/"));
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(page.content_type, "text/html; charset=utf-8");
  EXPECT_EQ(page.body, embedded_files().front().bytes);
  EXPECT_EQ(field(page, "Content-Security-Policy"), kContentSecurityPolicy);
  EXPECT_EQ(field(page, "X-Content-Type-Options"), "nosniff");
  EXPECT_EQ(field(page, "Cache-Control"), "no-cache");
  const http::Response js = page_response(get("/webui/app.js", "HEAD"));
  EXPECT_EQ(js.status, 200);
  EXPECT_EQ(js.content_type, "text/javascript; charset=utf-8");
  EXPECT_EQ(js.body, source_file("app.js"));
  EXPECT_EQ(field(js, "Cache-Control"), "public, max-age=31536000, immutable");
  EXPECT_EQ(field(js, "Content-Security-Policy"), kContentSecurityPolicy);
  EXPECT_EQ(kContentSecurityPolicy.find("unsafe"), std::string_view::npos);
}

TEST(WebuiRoutes, UnknownFileIs404AndOtherMethods405) {
  const http::Response missing = page_response(get("/webui/nope.js"));
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.content_type, "application/json");
  EXPECT_NE(missing.body.find("\"not_found\""), std::string::npos);
  const http::Response post = page_response(get("/", "POST"));
  EXPECT_EQ(post.status, 405);
  EXPECT_EQ(field(post, "Allow"), "GET, HEAD");
}

TEST(WebuiRoutes, PagePassesWithoutTheKeyButTheApiDoesNot) {
  EXPECT_FALSE(check_api_key(get("/"), {"sk-1"}, true));
  EXPECT_FALSE(check_api_key(get("/webui/app.js"), {"sk-1"}, true));
  EXPECT_TRUE(check_api_key(get("/v1/models"), {"sk-1"}, false));
  EXPECT_TRUE(check_api_key(get("/models"), {"sk-1"}, false));
  EXPECT_TRUE(check_api_key(get("/chat/completions", "POST"), {"sk-1"}, false));
}

}  // namespace
}  // namespace ogai::serve::webui
