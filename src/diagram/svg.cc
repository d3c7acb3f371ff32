#include "diagram/svg.h"

#include "calc/derivation.h"

#include <cmath>
#include <cstdio>

namespace ridge::diagram {

std::string fmt(double v) {
  if (!std::isfinite(v)) v = 0;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  std::string s(buf);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}


void Svg::line(double x1, double y1, double x2, double y2, std::string_view cls) {
  body_ += "<line x1=\"" + fmt(x1) + "\" y1=\"" + fmt(y1) + "\" x2=\"" + fmt(x2) + "\" y2=\"" + fmt(y2) +
           "\" class=\"" + std::string(cls) + "\"/>\n";
}

void Svg::rect(double x, double y, double w, double h, std::string_view cls, std::string_view tooltip) {
  body_ += "<rect x=\"" + fmt(x) + "\" y=\"" + fmt(y) + "\" width=\"" + fmt(std::max(0.0, w)) + "\" height=\"" +
           fmt(std::max(0.0, h)) + "\" class=\"" + std::string(cls) + "\"";
  if (tooltip.empty()) {
    body_ += "/>\n";
  } else {
    body_ += "><title>" + calc::html_escape(tooltip) + "</title></rect>\n";
  }
}

void Svg::circle(double cx, double cy, double r, std::string_view cls) {
  body_ += "<circle cx=\"" + fmt(cx) + "\" cy=\"" + fmt(cy) + "\" r=\"" + fmt(r) + "\" class=\"" + std::string(cls) + "\"/>\n";
}

void Svg::text(double x, double y, std::string_view content, std::string_view cls, std::string_view anchor) {
  body_ += "<text x=\"" + fmt(x) + "\" y=\"" + fmt(y) + "\" class=\"" + std::string(cls) + "\" text-anchor=\"" +
           std::string(anchor) + "\">" + calc::html_escape(content) + "</text>\n";
}

void Svg::polyline(const std::string& points, std::string_view cls) {
  body_ += "<polyline points=\"" + points + "\" class=\"" + std::string(cls) + "\"/>\n";
}

void Svg::path(const std::string& d, std::string_view cls) {
  body_ += "<path d=\"" + d + "\" class=\"" + std::string(cls) + "\"/>\n";
}

std::string_view standalone_style() {
  return ".d-bg{fill:#ffffff}.d-text{fill:#1b1d21;font:12px system-ui,sans-serif}.d-small{fill:#5a6070;font:10px system-ui,sans-serif}"
         ".d-title{fill:#1b1d21;font:bold 13px system-ui,sans-serif}.d-axis{stroke:#5a6070;stroke-width:1}"
         ".d-grid{stroke:#dcdfe5;stroke-width:1}.d-s1{stroke:#1f5fbf;stroke-width:2;fill:none}"
         ".d-s2{stroke:#c2571a;stroke-width:2;fill:none}.d-s3{stroke:#1d7a3e;stroke-width:2;fill:none}"
         ".d-s4{stroke:#7a3db8;stroke-width:2;fill:none}.d-f1{fill:#1f5fbf}.d-f2{fill:#c2571a}.d-f3{fill:#1d7a3e}"
         ".d-f4{fill:#7a3db8}.d-f5{fill:#8a6d00}.d-on{fill:#ffffff;font:bold 10px system-ui,sans-serif}.d-idle{fill:#dcdfe5}.d-bad{fill:#b3261e}.d-mark{fill:#1b1d21}"
         ".d-node{fill:#ffffff;stroke:#1f5fbf;stroke-width:2}.d-arrow{stroke:#c2571a;stroke-width:2;fill:none}"
         ".d-cell{fill:#f1f3f6;stroke:#dcdfe5}.d-shared{fill:#1d7a3e}.d-waste{fill:#dcdfe5}"
         "@media (prefers-color-scheme:dark){.d-bg{fill:#121417}.d-text,.d-title{fill:#e7e9ee}.d-small{fill:#a2a9b8}"
         ".d-grid{stroke:#2c313a}.d-axis{stroke:#a2a9b8}.d-s1{stroke:#7fb0ff}.d-s2{stroke:#ffab70}.d-s3{stroke:#6fd08f}"
         ".d-s4{stroke:#c79bff}.d-f1{fill:#7fb0ff}.d-f2{fill:#ffab70}.d-f3{fill:#6fd08f}.d-f4{fill:#c79bff}.d-f5{fill:#e0c060}"
         ".d-on{fill:#0b1220}"
         ".d-idle{fill:#2c313a}.d-bad{fill:#ff8a80}.d-mark{fill:#e7e9ee}.d-node{fill:#121417;stroke:#7fb0ff}"
         ".d-arrow{stroke:#ffab70}.d-cell{fill:#1f242b;stroke:#2c313a}.d-shared{fill:#6fd08f}.d-waste{fill:#2c313a}}";
}

std::string Svg::finish(std::string_view kind, std::string_view id, std::string_view title, std::string_view desc,
                        bool standalone) const {
  std::string tid = std::string(id) + "-title", did = std::string(id) + "-desc";
  std::string out;
  if (standalone) out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"diagram d-" + std::string(kind) + "\" viewBox=\"0 0 " +
         fmt(width_) + " " + fmt(height_) + "\" role=\"img\" aria-labelledby=\"" + tid + " " + did + "\"" +
         (standalone ? " width=\"" + fmt(width_) + "\" height=\"" + fmt(height_) + "\"" : std::string()) + ">\n";
  out += "<title id=\"" + tid + "\">" + calc::html_escape(title) + "</title>\n<desc id=\"" + did + "\">" + calc::html_escape(desc) + "</desc>\n";
  if (standalone) out += "<style>" + std::string(standalone_style()) + "</style>\n";
  out += "<rect x=\"0\" y=\"0\" width=\"" + fmt(width_) + "\" height=\"" + fmt(height_) + "\" class=\"d-bg\"/>\n";
  out += body_;
  out += "</svg>\n";
  return out;
}

}  // namespace ridge::diagram
