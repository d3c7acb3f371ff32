// A small SVG writer: deterministic output (fixed decimals, no timestamps, no random ids)
// so the same input gives the same bytes. Colours are CSS classes; the page stylesheet
// (web/static/style.css) or, for a standalone file, an embedded <style> gives them values,
// with a dark variant from prefers-color-scheme.
#pragma once

#include <string>
#include <string_view>

namespace ridge::diagram {

class Svg {
 public:
  Svg(double width, double height) : width_(width), height_(height) {}

  void line(double x1, double y1, double x2, double y2, std::string_view cls);
  void rect(double x, double y, double w, double h, std::string_view cls, std::string_view tooltip = {});
  void circle(double cx, double cy, double r, std::string_view cls);
  // anchor: start | middle | end
  void text(double x, double y, std::string_view content, std::string_view cls = "d-text", std::string_view anchor = "start");
  void polyline(const std::string& points, std::string_view cls);
  void path(const std::string& d, std::string_view cls);
  void raw(std::string_view fragment) { body_ += fragment; }

  // `id` makes the title and desc ids unique on a page with several diagrams.
  std::string finish(std::string_view kind, std::string_view id, std::string_view title, std::string_view desc,
                     bool standalone) const;

  double width() const { return width_; }
  double height() const { return height_; }

 private:
  double width_, height_;
  std::string body_;
};

// A coordinate with two decimals and no trailing zeros: 12.5, 3, 0.25.
std::string fmt(double v);

// The stylesheet embedded in standalone files (the same classes as web/static/style.css).
std::string_view standalone_style();

}  // namespace ridge::diagram
