// The ogai public API: include this one header.
//   auto model = ogai::Model::load("path/to/package");
//   auto result = model->generate("Once upon a time", {.max_new_tokens = 40});
#pragma once

#include "ogai/chat.h"
#include "ogai/error.h"
#include "ogai/export.h"
#include "ogai/engine.h"
#include "ogai/generation.h"
#include "ogai/media.h"
#include "ogai/model.h"
#include "ogai/options.h"
#include "ogai/validate.h"
#include "ogai/version.h"
#include "ogai/workflow.h"
