# Model packages assembled in the build folder (never committed):
# - ${OGAI_PACKAGES_DIR}/stories260k: ../shared/models/stories260k/{model.onnx,tokenizer.json}
#   copied beside the committed metadata and tokenizer files of tests/data/stories260k
#   (re-copied whenever either side changes);
# - target `bench_packages`: the benchmark-size family-1 package (tools/fixtures/generate.py --bench).
set(OGAI_PACKAGES_DIR ${PROJECT_BINARY_DIR}/packages)

set(stories_shared ${OGAI_SHARED_DIR}/models/stories260k)
if(EXISTS ${stories_shared}/model.onnx)
  foreach(file model.onnx tokenizer.json)
    configure_file(${stories_shared}/${file} ${OGAI_PACKAGES_DIR}/stories260k/${file} COPYONLY)
  endforeach()
  foreach(file inference_metadata.yaml tokenizer_config.json generation_config.json chat_template.jinja config.json)
    configure_file(${PROJECT_SOURCE_DIR}/tests/data/stories260k/${file} ${OGAI_PACKAGES_DIR}/stories260k/${file} COPYONLY)
  endforeach()
else()
  message(WARNING "${stories_shared} not found: the stories260k package is not assembled (set OGAI_SHARED_DIR)")
endif()

add_custom_target(bench_packages
  COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tools/fixtures/generate.py --bench ${OGAI_PACKAGES_DIR}
  COMMENT "Generating the benchmark package ${OGAI_PACKAGES_DIR}/e2b-bench"
  VERBATIM)
