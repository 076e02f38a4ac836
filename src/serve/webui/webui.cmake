# The chat page (included by src/serve/CMakeLists.txt): its files in src/serve/webui/ are written
# into a generated source (embed_assets.cmake) whenever one changes; OGAI_WEBUI_SOURCES lists the
# sources to build into ogai_serve. BUDGET is webui_assets.h's kAssetBudgetBytes (the build fails
# beyond it; serve_webui_test checks the same figure).
set(webui_dir ${CMAKE_CURRENT_SOURCE_DIR}/webui)
set(webui_files index.html app.js markdown.js style.css icon.svg)
list(TRANSFORM webui_files PREPEND ${webui_dir}/ OUTPUT_VARIABLE webui_paths)
string(REPLACE ";" "," webui_list "${webui_files}")
set(webui_generated ${CMAKE_CURRENT_BINARY_DIR}/webui_assets_data.cc)
add_custom_command(
  OUTPUT ${webui_generated}
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${webui_dir} -DFILES=${webui_list} -DOUTPUT=${webui_generated}
          -DBUDGET=102400 -P ${webui_dir}/embed_assets.cmake
  DEPENDS ${webui_dir}/embed_assets.cmake ${webui_paths}
  COMMENT "Embedding the chat page (src/serve/webui/)"
  VERBATIM)
set(OGAI_WEBUI_SOURCES webui/chat_page.cc ${webui_generated})
