// .gitignore-style rules (.gitignore and .berthignore): which files a deploy leaves out.
// Supported: blank lines and # comments, ! to re-include, a trailing / for folders only, a
// leading or inner / to anchor at the file's folder, *, ?, [a-z] / [!a-z] and ** across folders,
// \ to escape. The last matching rule wins; rules of a deeper folder come after (and so win
// over) those of the folders above, as in git. A folder that is left out is not entered, so
// nothing under it can be re-included.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace berth::client {

// Glob match of one pattern against a relative path: * and ? never cross a /, ** does.
bool globMatch(std::string_view pattern, std::string_view path);

class IgnoreRules {
 public:
  // The text of an ignore file found in folder `base` ("" for the top, "a/b" below it).
  void add(const std::string& text, const std::string& base = "");
  // `path` is relative to the top folder, with / between segments.
  bool ignored(const std::string& path, bool is_dir) const;
  size_t size() const { return rules_.size(); }

 private:
  struct Rule {
    std::string base, pattern;
    bool negate = false, dir_only = false, anchored = false;
  };
  std::vector<Rule> rules_;
};

}  // namespace berth::client
